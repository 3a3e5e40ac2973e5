// A child process that adds entries to one memory file as fast as it can and prints `ack <entry>` after
// each write resolved (`full <entry>` when the cap refused it). Usage: memory-writer.ts <dir> <limit> <worker> <count>
import { join } from 'node:path'
import { MemoryFiles, MemoryRefusal } from '@engram/agent'

const [dir = '', limit = '2200', worker = '0', count = '40'] = process.argv.slice(2)
const memory = new MemoryFiles({
  memoryPath: join(dir, 'MEMORY.md'),
  userPath: join(dir, 'USER.md'),
  memoryCharLimit: Number(limit),
  userCharLimit: 1375,
  compactTriggerRatio: 0.9,
})

for (let i = 0; i < Number(count); i++) {
  const entry = `worker ${worker} entry ${i}: 用户喜欢简洁的回答`
  try {
    await memory.apply('memory', [{ action: 'add', content: entry }])
    process.stdout.write(`ack ${entry}\n`)
  } catch (error) {
    if (!(error instanceof MemoryRefusal) || error.reason !== 'over_cap') throw error
    process.stdout.write(`full ${entry}\n`)
  }
}
