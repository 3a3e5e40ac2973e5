import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

/** Blocks a child until the parent creates `goFile`, so that all children start writing together. */
export async function waitForGoFile(goFile: string): Promise<void> {
  const deadline = Date.now() + 600_000
  while (!existsSync(goFile)) {
    if (Date.now() > deadline) {
      console.error(`The go file ${goFile} never appeared.`)
      process.exit(3)
    }
    await sleep(1)
  }
}
