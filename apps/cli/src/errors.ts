import { ProviderError } from '@engram/agent'
import { EngramError } from '@engram/core'
import { CommanderError } from 'commander'

/** The command line itself is wrong (unknown option, bad value): exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** The command has printed its own verdict (doctor's ✗ lines); exit 1 without another message. */
export class AlreadyReported extends Error {
  override readonly name = 'AlreadyReported'
}

/** 0 ok, 1 the command failed, 2 the command line could not be understood. */
export function exitCodeOf(error: unknown): 1 | 2 {
  return error instanceof UsageError || error instanceof CommanderError ? 2 : 1
}

/** The one line printed for an error: the cause and the fix, never a stack (ENGRAM_DEBUG=1 shows it). */
export function errorLine(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? ''
  const known = [EngramError, ProviderError, UsageError, CommanderError]
  if (known.some((kind) => error instanceof kind)) return message
  return `${message} (unexpected error: rerun with ENGRAM_DEBUG=1 to see where it happened)`
}

export function errorCode(error: unknown): string {
  if (error instanceof EngramError || error instanceof ProviderError) return error.code
  if (error instanceof UsageError || error instanceof CommanderError) return 'USAGE'
  return 'UNEXPECTED'
}

/** A positive whole number from an option, or a usage error naming it. */
export function positiveInt(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`${option} must be a whole number of at least 1 (got ${JSON.stringify(value)}).`)
  }
  return n
}
