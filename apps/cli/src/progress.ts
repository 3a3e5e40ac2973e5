import { spinner } from '@clack/prompts'
import cliProgress from 'cli-progress'
import type { Io } from './output.ts'

export interface Progress {
  increment(by?: number): void
  stop(): void
}

const SILENT: Progress = { increment: () => undefined, stop: () => undefined }

/**
 * A progress bar on stderr when it is a terminal and the output is for a human; silence otherwise (pipes,
 * `--json`, tests), so nothing but the result reaches a file.
 */
export function startProgress(io: Io, json: boolean, label: string, total: number): Progress {
  if (json || !io.stderr.isTTY || total <= 0) return SILENT
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {value}/{total}`,
      stream: io.stderr as NodeJS.WritableStream,
      hideCursor: true,
      clearOnComplete: true,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  )
  bar.start(total, 0)
  return { increment: (by = 1) => bar.increment(by), stop: () => bar.stop() }
}

/** What a transfer reports after each session it wrote or skipped: how many messages the session holds. */
export interface TransferProgress {
  session(messages: number): void
}

/** A bar's view of a transfer: a session counts its messages (at least 1, so empty sessions move it too). */
export const barOfSessions = (bar: Progress): TransferProgress => ({
  session: (messages) => bar.increment(Math.max(1, messages)),
})

/** How often a counter redraws at most: a terminal that repaints every session would slow a big copy down. */
const COUNTER_INTERVAL_MS = 100

/**
 * A running count of sessions and messages on stderr (`Copying: 1200 sessions, 48210 messages`) for a
 * transfer whose size is not known up front, on a terminal and without `--json` only; `stop()` draws the
 * final count and clears the line, so the result printed next stands alone.
 */
export function startCounter(io: Io, json: boolean, label: string): TransferProgress & { stop(): void } {
  if (json || !io.stderr.isTTY) return { session: () => undefined, stop: () => undefined }
  let sessions = 0
  let messages = 0
  let drawn = 0
  const draw = () =>
    io.stderr.write(`\r${label}: ${sessions} session${sessions === 1 ? '' : 's'}, ${messages} messages`)
  return {
    session(count) {
      sessions++
      messages += count
      const now = Date.now()
      if (now - drawn < COUNTER_INTERVAL_MS) return
      drawn = now
      draw()
    },
    stop() {
      if (sessions > 0) draw()
      io.stderr.write('\r\u001b[K')
    },
  }
}

/** Runs `work` under a spinner on a terminal (stderr); silently otherwise. */
export async function withSpinner<T>(
  io: Io,
  json: boolean,
  label: string,
  work: () => Promise<T>,
): Promise<T> {
  if (json || !io.stderr.isTTY) return work()
  const spin = spinner({ output: io.stderr as NodeJS.WriteStream })
  spin.start(label)
  try {
    const result = await work()
    spin.stop(`${label}: done`)
    return result
  } catch (error) {
    spin.error(`${label}: failed`)
    throw error
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/**
 * A spinner on stderr while the model is being called (retries included), on a terminal only; `stop()`
 * clears it and may be called any number of times.
 */
export function waiting(io: Io, label: string): Progress {
  if (!io.stderr.isTTY) return SILENT
  let frame = 0
  const draw = () => io.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}…`)
  draw()
  const timer = setInterval(draw, 100)
  let stopped = false
  return {
    increment: () => undefined,
    stop() {
      if (stopped) return
      stopped = true
      clearInterval(timer)
      io.stderr.write('\r\u001b[K')
    },
  }
}
