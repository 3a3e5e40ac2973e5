// One of several processes writing the same EngramSession at once:
//   session-writer-child.ts <db path> <session id> <name> <go file> <rounds> <all|transactions>
// Prints READY, waits for the go file, then per round applies the shared transaction `shared-<i>`
// (every writer applies the same ones: a retry race), and in `all` mode adds its own item and pops
// one every third round (printing `POPPED <json>`). Prints `DONE <i>` after each round.
import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { openStore } from '@engram/core'
import { EngramSession } from '../../src/index.ts'

const [dbPath, sessionId, name, goFile, rounds, mode] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
]
const store = await openStore({ url: dbPath })
const session = new EngramSession({ store, sessionId })
process.stdout.write('READY\n')
while (!existsSync(goFile)) await sleep(5)
for (let i = 0; i < Number(rounds); i++) {
  await session.applyHistoryTransaction({
    operationId: `shared-${i}`,
    transaction: { type: 'append_items', items: [{ role: 'user', content: `shared ${i}` }] },
  })
  if (mode === 'all') {
    await session.addItems([{ role: 'user', content: `${name} ${i}` }])
    if (i % 3 === 2) process.stdout.write(`POPPED ${JSON.stringify(await session.popItem())}\n`)
  }
  process.stdout.write(`DONE ${i}\n`)
}
await store.close()
