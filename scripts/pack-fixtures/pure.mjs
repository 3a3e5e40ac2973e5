// Imports @engram/compressor with the database layer refused (see deny-hooks.mjs) and compresses.
import { register } from 'node:module'

register('./deny-hooks.mjs', import.meta.url)
const { compress } = await import('@engram/compressor')
const messages = [{ role: 'system', content: 'sys' }]
for (let i = 0; i < 10; i++) {
  messages.push({ role: 'user', content: `question ${i} ${'word '.repeat(200)}` })
  messages.push({ role: 'assistant', content: `answer ${i} ${'word '.repeat(200)}` })
}
const result = await compress(messages, { window: 3000, summarizer: { summarize: async () => 'summary' } })
process.stdout.write(JSON.stringify({ status: result.report.status, messages: result.messages.length }))
