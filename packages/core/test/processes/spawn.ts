import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The monorepo root: children run from here so `drizzle.config.ts` and `node_modules/.bin` resolve. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
/**
 * tsx's loader, for `node --import`. The `tsx` command runs the script in a second, grandchild process and
 * only relays signals to it, so a SIGKILL sent to the spawned pid would leave the real writer running:
 * loading tsx into node itself makes the spawned process the one that does the work.
 */
export const TSX_LOADER = new URL('../../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

/** A real child process with its output collected, and a line-by-line view of its stdout. */
export interface Child {
  proc: ChildProcess
  /** Everything written so far. */
  stdout: () => string
  stderr: () => string
  exited: Promise<Exit>
  /** Called with each complete stdout line as it arrives. */
  onLine: (listener: (line: string) => void) => void
  /** The process' id, output and exit, for failure messages. */
  describe: () => string
}

/** Spawns `command args` with stdin closed and both output streams piped and collected. */
export function spawnProcess(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Child {
  const proc = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  let partial = ''
  const listeners: ((line: string) => void)[] = []
  proc.stdout?.setEncoding('utf8')
  proc.stderr?.setEncoding('utf8')
  proc.stdout?.on('data', (chunk: string) => {
    out += chunk
    partial += chunk
    let newline = partial.indexOf('\n')
    while (newline !== -1) {
      const line = partial.slice(0, newline)
      partial = partial.slice(newline + 1)
      for (const listener of listeners) listener(line)
      newline = partial.indexOf('\n')
    }
  })
  proc.stderr?.on('data', (chunk: string) => {
    err += chunk
  })
  const exited = new Promise<Exit>((resolve, reject) => {
    proc.on('error', reject)
    // 'close' waits for the pipes to drain, so stdout() is complete once this resolves.
    proc.on('close', (code, signal) => resolve({ code, signal }))
  })
  let last: Exit | undefined
  exited.then(
    (e) => {
      last = e
    },
    () => undefined,
  )
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    exited,
    onLine: (listener) => listeners.push(listener),
    describe: () =>
      [
        `pid ${proc.pid}: ${command} ${args.join(' ')}`,
        `exit: ${last ? JSON.stringify(last) : 'still running'}`,
        `stderr:\n${err.slice(-4000) || '(empty)'}`,
        `stdout (tail):\n${out.slice(-2000) || '(empty)'}`,
      ].join('\n'),
  }
}

/** Runs one of the scripts in this folder with tsx, in a single node process. */
export function spawnScript(script: string, args: string[]): Child {
  return spawnProcess(process.execPath, [
    '--import',
    TSX_LOADER,
    fileURLToPath(new URL(script, import.meta.url)),
    ...args,
  ])
}

/**
 * Resolves with the first stdout line `match` accepts, already printed or still to come (a line the child
 * printed while the caller was busy counts); rejects if the child exits first or time runs out.
 */
export function waitForLine(
  child: Child,
  match: (line: string) => boolean,
  timeoutMs: number,
): Promise<string> {
  const printed = child.stdout().split('\n').slice(0, -1).find(match)
  if (printed !== undefined) return Promise.resolve(printed)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`No expected line within ${timeoutMs} ms.\n${child.describe()}`)),
      timeoutMs,
    )
    child.onLine((line) => {
      if (match(line)) {
        clearTimeout(timer)
        resolve(line)
      }
    })
    child.exited.then(
      () => {
        clearTimeout(timer)
        reject(new Error(`The child exited before printing the expected line.\n${child.describe()}`))
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

/** The child's exit, or a rejection with its output if it has not exited within `timeoutMs`. */
export function exitWithin(child: Child, timeoutMs: number): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`The child did not exit within ${timeoutMs} ms.\n${child.describe()}`)),
      timeoutMs,
    )
  })
  return Promise.race([child.exited, timeout]).finally(() => clearTimeout(timer))
}

/** Kills a child that is still running (for cleanup after a failed assertion). */
export function killIfRunning(child: Child): void {
  if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL')
}
