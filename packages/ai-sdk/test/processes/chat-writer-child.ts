// One of several processes writing one AI SDK chat at once, as route handlers do:
//   chat-writer-child.ts <db path> <chat id> <name> <go file> <rounds>
// Prints READY, waits for the go file, then per round loads the chat, appends its own message and saves,
// printing `ACK <message id>` once the save returned.
import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { openStore } from '@engram/core'
import type { UIMessage } from 'ai'
import { createChatStore } from '../../src/index.ts'

const [dbPath, chatId, name, goFile, rounds] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
]
const store = await openStore({ url: dbPath })
const chats = createChatStore({ store })
process.stdout.write('READY\n')
while (!existsSync(goFile)) await sleep(5)
for (let i = 0; i < Number(rounds); i++) {
  const id = `${name}-${i}`
  const messages: UIMessage[] = [
    ...(await chats.loadChat(chatId)),
    { id, role: 'user', parts: [{ type: 'text', text: `message ${id}` }] },
  ]
  await chats.saveChat({ id: chatId, messages })
  process.stdout.write(`ACK ${id}\n`)
}
await store.close()
