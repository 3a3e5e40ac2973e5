#!/usr/bin/env node
// Runs the built CLI when there is one (dist/, after `pnpm build`), else the TypeScript source through tsx,
// so that `pnpm --filter engram exec engram` works in the workspace without a build step.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const built = new URL('../dist/main.js', import.meta.url)
let entry = built
if (!existsSync(fileURLToPath(built))) {
  const { register } = await import('tsx/esm/api')
  register()
  entry = new URL('../src/main.ts', import.meta.url)
}
const { main } = await import(entry.href)
const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }
process.exitCode = await main(process.argv.slice(2), io)
