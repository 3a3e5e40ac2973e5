#!/usr/bin/env node
// Runs the built CLI when there is one (dist/, after `pnpm build`), else the TypeScript source through tsx
// with the `engram-source` condition, so `pnpm --filter engram exec engram` works without a build step.
// ENGRAM_FROM_SOURCE=1 runs the source even when a build exists (the tests set it: a stale dist/ must not
// stand in for the code under test).
import { existsSync } from 'node:fs'
import { register } from 'node:module'
import { fileURLToPath } from 'node:url'

const built = new URL('../dist/main.mjs', import.meta.url)
let entry = built
if (process.env.ENGRAM_FROM_SOURCE === '1' || !existsSync(fileURLToPath(built))) {
  const tsx = await import('tsx/esm/api')
  tsx.register()
  register('./source-conditions.mjs', import.meta.url)
  entry = new URL('../src/main.ts', import.meta.url)
}
// A reader that stops early (`engram sessions | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})
const { main } = await import(entry.href)
const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
}
process.exitCode = await main(process.argv.slice(2), io)
