// Runs inside the pack test's npm project (scripts/pack-test.ts), which installed the packed tarballs.
import { compress, persistCompression } from '@engram/compressor'
import { openStore } from '@engram/core'

const store = await openStore({ url: './data/engram.db' })
const session = await store.createSession({ source: 'pack-test', userId: 'u1' })
const history = [{ role: 'system', content: 'You are a coding agent.' }]
for (let i = 0; i < 12; i++) {
  history.push({ role: 'user', content: `第${i}步：部署后端服务 and check module${i}` })
  history.push({ role: 'assistant', content: `Deployed module${i}. ${'log line '.repeat(300)}` })
}
await store.appendMessages(session.id, history)
const restored = await store.getStoredMessages(session.id)
const summarizer = { summarize: async () => 'Goal: deploy the backend. Done: modules 0-8 deployed.' }
const result = await compress(restored, { window: 4000, summarizer, config: { tailProtectTokens: 1000 } })
const continued = await persistCompression(store, session.id, result)
const output = {
  restored: restored.length,
  firstContent: restored[1].content,
  english: (await store.search('module3')).length,
  chinese: (await store.search('部署')).length,
  compressed: result.report.status,
  childMessages: (await store.getMessages(continued.session.id)).length,
  lineage: (await store.getLineage(continued.session.id)).length,
}
await store.close()
process.stdout.write(JSON.stringify(output))
