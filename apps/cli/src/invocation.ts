import { accessSync, constants, readFileSync, realpathSync, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { type Io, shellWord } from './output.ts'

/** A shim larger than this is not one (pnpm's and npm's are a few hundred bytes). */
const SHIM_BYTES = 64 * 1024

/** Whether the first `engram` on PATH runs `launcher`: a link to it, or a shim script naming it. */
function engramOnPath(path: string | undefined, launcher: string): boolean {
  const self = realpathSync(launcher)
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, 'engram')
    try {
      accessSync(candidate, constants.X_OK)
    } catch {
      continue
    }
    // The shell runs the first one found: it is ours, or `engram` means another program here.
    try {
      if (realpathSync(candidate) === self) return true
      return statSync(candidate).size < SHIM_BYTES && readFileSync(candidate, 'utf8').includes(self)
    } catch {
      return false
    }
  }
  return false
}

/**
 * How to run this CLI where the user is, as commands it prints start: `engram` when that name runs it
 * (installed, linked), `pnpm engram` when it was started by the workspace's script from the workspace's
 * folder (`pnpm --dir <workspace> engram` from another folder: pnpm runs scripts there, so relative paths
 * mean the same), else `node <launcher>`, which runs from any folder. `engram` when the launcher is unknown
 * (the CLI run in-process).
 */
export function cliCommand(io: Pick<Io, 'env' | 'launcher'>): string {
  const { env, launcher } = io
  if (!launcher) return 'engram'
  const workspace = env.PNPM_SCRIPT_SRC_DIR
  const script = env.npm_lifecycle_event
  if (workspace && env.npm_package_name === 'engram-workspace' && (script === 'engram' || script === 'demo'))
    return env.INIT_CWD === workspace ? 'pnpm engram' : `pnpm --dir ${shellWord(workspace)} engram`
  if (engramOnPath(env.PATH, launcher)) return 'engram'
  return `node ${shellWord(launcher)}`
}
