/**
 * One of several processes writing the same thread at once: `node saver-writer-child.ts <url> <schema>
 * <steps>`. It saves `steps` checkpoints of thread `shared` (the same ids and values in every process, as
 * two workers resuming one thread would), each with a changed channel and two tasks' pending writes, then
 * prints DONE.
 */
import { openStore } from '@engram/core'
import { EngramSaver } from '../../src/index.ts'
import { sharedStep } from '../shared-thread.ts'

const [url, schema, steps] = process.argv.slice(2) as [string, string, string]
const store = await openStore({ url, ...(schema === '-' ? {} : { schema }) })
const saver = new EngramSaver({ store })
for (let i = 0; i < Number(steps); i++) {
  const step = sharedStep(i)
  const config = await saver.put(step.parentConfig, step.checkpoint, step.metadata, step.newVersions)
  for (const [taskId, writes] of step.writes) await saver.putWrites(config, writes, taskId)
}
await store.close()
console.log('DONE')
