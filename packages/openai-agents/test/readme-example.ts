import { execFile } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { TSX_LOADER } from '../../core/test/processes/spawn.ts'

/**
 * Runs the first ```ts block of a package's README (after the heading `section`, when given) as written,
 * in a child process with `cwd` as its working folder and `env` added. The block is written inside the
 * package's test folder, so the package name and its dependencies resolve as they do for a user. Returns
 * its stdout.
 */
export async function runReadmeExample(
  packageUrl: URL,
  cwd: string,
  env: Record<string, string>,
  section?: string,
) {
  const readme = readFileSync(new URL('README.md', packageUrl), 'utf8')
  const from = section === undefined ? 0 : readme.indexOf(`\n${section}\n`)
  if (from < 0) throw new Error(`The README has no heading ${JSON.stringify(section)}.`)
  const example = /```ts\n([\s\S]*?)```/.exec(readme.slice(from))?.[1] ?? ''
  const file = fileURLToPath(new URL(`test/readme-example-${process.pid}.ts`, packageUrl))
  writeFileSync(file, example)
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=engram-source', '--import', TSX_LOADER, file],
      { cwd, env: { ...process.env, ...env } },
    )
    return { lines: example.trim().split('\n').length, stdout }
  } finally {
    rmSync(file, { force: true })
  }
}
