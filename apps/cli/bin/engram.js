#!/usr/bin/env node
// Runs the built CLI when there is one (dist/, after `pnpm build`), else the TypeScript source through tsx
// with the `engram-source` condition, so `pnpm --filter engram exec engram` works without a build step.
// ENGRAM_FROM_SOURCE=1 runs the source even when a build exists (for working on the CLI: a stale dist/ must not
// stand in for the code under test). A build that cannot be loaded (dist/ half rewritten while
// `pnpm build` runs) falls back to the source when there is one, and otherwise says what to do.
import { existsSync } from 'node:fs'
import { register } from 'node:module'
import { fileURLToPath } from 'node:url'

const built = new URL('../dist/main.mjs', import.meta.url)
const source = new URL('../src/main.ts', import.meta.url)

async function loadSource() {
  const tsx = await import('tsx/esm/api')
  tsx.register()
  register('./source-conditions.mjs', import.meta.url)
  return import(source.href)
}

/** The CLI's module: the build, or the source when there is no build, it is not wanted, or it is broken. */
async function loadMain() {
  if (process.env.ENGRAM_FROM_SOURCE === '1' || !existsSync(fileURLToPath(built))) return loadSource()
  try {
    return await import(built.href)
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.url ?? error.message).includes('/dist/'))
      throw error
    const missing = String(error.message).split('\n')[0]
    const dist = fileURLToPath(new URL('../dist/', import.meta.url))
    if (existsSync(fileURLToPath(source))) {
      process.stderr.write(
        `engram: the build in ${dist} is incomplete (${missing}); it is probably being rebuilt. Running from the TypeScript sources instead.\n`,
      )
      return loadSource()
    }
    process.stderr.write(
      `engram: the build in ${dist} is incomplete (${missing}). Wait for a running \`pnpm build\` to finish, or reinstall engram.\n`,
    )
    process.exit(1)
  }
}

// A reader that stops early (`engram sessions | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})
const { main } = await loadMain()
const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  launcher: fileURLToPath(import.meta.url),
}
process.exitCode = await main(process.argv.slice(2), io)
