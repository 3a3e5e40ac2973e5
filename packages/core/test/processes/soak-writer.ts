/**
 * A writer of the soak test; it runs until it is killed or the stop file appears.
 *
 *   node --import tsx soak-writer.ts <db path> <writer index> <ack file> <stop file>
 *
 * Appends to its own session (`soak-w<index>`, created by the first incarnation) messages that each carry
 * a unique token (`tok<index>p<pid>n<n>`): plain English, Chinese, or an assistant tool call with the
 * token in its arguments. After appendMessage resolves, the message id and token are appended to the ack
 * file as one line: a line there means the store acknowledged the write. Failed appends go to
 * `<ack file>.errors`.
 */
import { appendFileSync, existsSync } from 'node:fs'
import { EngramError, type MessageInput, openStore } from '@engram/core'
import { soakSessionId } from './soak-ids.ts'

const [path, indexArg, ackFile, stopFile] = process.argv.slice(2)
if (!path || !indexArg || !ackFile || !stopFile) {
  console.error('usage: soak-writer.ts <db path> <writer index> <ack file> <stop file>')
  process.exit(2)
}

function message(token: string, n: number): MessageInput {
  switch (n % 5) {
    case 1:
      return { role: 'user', content: `第${n}条消息：我们需要检查数据库的索引 ${token}` }
    case 3:
      return {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${token}`,
            type: 'function',
            function: { name: 'search_code', arguments: JSON.stringify({ query: token, limit: 5 }) },
          },
        ],
      }
    default:
      return { role: n % 2 ? 'assistant' : 'user', content: `Soak message ${n} checks the index ${token}.` }
  }
}

const store = await openStore({ url: path })
const sessionId = soakSessionId(indexArg)
try {
  await store.createSession({ id: sessionId, source: 'soak' })
} catch (error) {
  if (!(error instanceof EngramError && error.code === 'SESSION_EXISTS')) throw error
}
console.log('READY')
for (let n = 0; !existsSync(stopFile); n++) {
  const token = `tok${indexArg}p${process.pid}n${n}`
  try {
    const { id } = await store.appendMessage(sessionId, message(token, n))
    appendFileSync(ackFile, `${id} ${token}\n`)
  } catch (error) {
    appendFileSync(`${ackFile}.errors`, `${(error as Error).message}\n`)
  }
}
await store.close()
