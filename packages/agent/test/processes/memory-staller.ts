// A child process that dies in the middle of a memory write: it takes the lock, writes the temp file and
// then blocks its thread just before the rename (so it stops refreshing the lock too), printing `stalled`.
// The parent kills it with SIGKILL. Usage: memory-staller.ts <dir>
import { join } from 'node:path'
import { withFileLock, writeFileAtomic } from '../../src/memory/atomic-file.ts'

const [dir = ''] = process.argv.slice(2)
await withFileLock(join(dir, 'MEMORY.md'), (stillHeld) =>
  writeFileAtomic(join(dir, 'MEMORY.md'), 'an entry nobody acknowledged\n', () => {
    stillHeld()
    process.stdout.write('stalled\n')
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
  }),
)
