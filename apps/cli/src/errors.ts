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

/**
 * What is printed for an error: its cause and fix, never a stack (ENGRAM_DEBUG=1 shows it). A message of
 * several lines (a refusal with its advice and the entries it is about) is printed whole; commander's
 * suggestion line joins its sentence.
 */
export function errorLine(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).trim()
  if (error instanceof CommanderError) return message.replace(/\s*\n\s*/g, ' ')
  const known = [EngramError, ProviderError, UsageError]
  if (known.some((kind) => error instanceof kind)) return message
  const first = message.split('\n')[0]?.trim() ?? ''
  return `${first} (unexpected error: rerun with ENGRAM_DEBUG=1 to see where it happened)`
}

export function errorCode(error: unknown): string {
  if (error instanceof EngramError || error instanceof ProviderError) return error.code
  if (error instanceof UsageError || error instanceof CommanderError) return 'USAGE'
  return 'UNEXPECTED'
}

/** A whole number from `min` to `max` given to an option, or a usage error naming the option. */
export function wholeOption(
  value: string | undefined,
  option: string,
  fallback: number,
  { min = 1, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {},
): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`
    throw new UsageError(`${option} must be a whole number ${range} (got ${JSON.stringify(value)}).`)
  }
  return n
}
