import { z } from 'zod'
import { EngramError, type EngramErrorCode } from './errors.ts'

// Node 20 has String.prototype.isWellFormed; TypeScript's ES2023 lib does not declare it yet.
export const isWellFormed = (value: string): boolean =>
  (value as unknown as { isWellFormed(): boolean }).isWellFormed()

const WELL_FORMED = 'must be well-formed text (it holds a lone UTF-16 surrogate; fix it with .toWellFormed())'

/** Text that reaches the database: SQLite stores UTF-8, which cannot hold a lone surrogate. */
export const text = z.string().refine(isWellFormed, WELL_FORMED)

/**
 * An identifier (session id, user id, source): non-empty, well-formed text. Ill-formed ids are refused
 * because drivers would replace their lone surrogates and distinct ids would then collide.
 */
export const identifier = z.string().min(1, 'must be a non-empty string').refine(isWellFormed, WELL_FORMED)

export const wholeNumber = (min = 0) =>
  z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(Number.MAX_SAFE_INTEGER, 'must be a safe integer')

/** Milliseconds since the epoch: a finite number (NaN and strings are refused, not silently matched). */
export const epochMs = z.number({ error: 'must be a number of milliseconds since the epoch' }).finite()

const describe = (issue: z.core.$ZodIssue, value: unknown, field: string): string => {
  const path = issue.path.map(String).join('.')
  const got = issue.path.reduce<unknown>(
    (v, key) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined),
    value,
  )
  let shown: string
  try {
    shown = typeof got === 'bigint' ? `${got}n` : (JSON.stringify(got) ?? String(got))
  } catch {
    shown = Object.prototype.toString.call(got)
  }
  if (shown.length > 80) shown = `${shown.slice(0, 77)}...`
  return `${path || field} ${issue.message} (got ${shown})`
}

/**
 * Parses `value` with `schema`, or throws an EngramError (`INVALID_ARGUMENT` unless `code` says otherwise)
 * naming the action, each wrong field (`field` names a bare value) with the value it had, and what it
 * must be. Cost: one schema walk.
 */
export function parse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  action: string,
  { code = 'INVALID_ARGUMENT', field = 'the value' }: { code?: EngramErrorCode; field?: string } = {},
): z.output<S> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const problems = result.error.issues.map((issue) => describe(issue, value, field))
  throw new EngramError(code, `${action}: ${problems.join('; ')}.`, { cause: result.error })
}
