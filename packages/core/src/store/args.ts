import { z } from 'zod'
import { EngramError } from '../errors.ts'
import { epochMs, identifier, isWellFormed, parse, text, wholeNumber } from '../validation.ts'

/**
 * The schemas of the Store's arguments: every public method parses its input here before any SQL runs,
 * so a wrong value is an INVALID_ARGUMENT naming the field, never a TypeError or a driver's bind error.
 * Messages are checked by the message codec instead (the append hot path), with INVALID_MESSAGE.
 */

/** The most rows one page of a list or search returns. */
export const MAX_LIMIT = 1000
const ROLES = ['system', 'user', 'assistant', 'tool'] as const

const optionalText = text.nullish()
const optionalId = identifier.nullish()
const oneOrMany = <T extends z.ZodType>(schema: T) => z.union([schema, z.array(schema)])

const sessionId = identifier

/** The session id argument of a Store method, checked (INVALID_ARGUMENT naming the action). */
export const checkSessionId = (id: unknown, action: string): string =>
  parse(sessionId, id, action, { field: 'the session id' })

const MAX_REF = 200

/** A message's `ref` for appendMessagesOnce: 1 to 200 characters. */
export function checkMessageRef(ref: unknown, index: number): string {
  if (typeof ref !== 'string' || ref.length === 0 || ref.length > MAX_REF) {
    throw new EngramError(
      'INVALID_ARGUMENT',
      `Appending a message: message ${index + 1} needs a ref, the writer's own id for it (a string of 1 to ${MAX_REF} characters; got ${JSON.stringify(ref) ?? 'nothing'}).`,
    )
  }
  return ref
}

/** The most characters a session's model settings may take as JSON. */
const MAX_MODEL_CONFIG_CHARS = 64 * 1024
const jsonValue = z.json()

/** A session's model settings: the known fields checked, other keys kept, the whole JSON and at most 64 KiB. */
export const modelConfig = z
  .looseObject({
    contextWindow: wholeNumber(1).optional(),
    maxTokens: wholeNumber(1).optional(),
    model: text.optional(),
    provider: text.optional(),
  })
  .refine(
    (config) => jsonValue.safeParse(config).success,
    'must hold JSON values only (text, finite numbers, booleans, null, arrays and objects; no undefined)',
  )
  .refine(
    (config) => JSON.stringify(config).length <= MAX_MODEL_CONFIG_CHARS,
    `must take at most ${MAX_MODEL_CONFIG_CHARS} characters as JSON`,
  )

/** A session's model settings as stored: JSON text, or null when none are given. */
export const modelConfigText = (config: z.output<typeof modelConfig> | null | undefined): string | null =>
  config === null || config === undefined ? null : JSON.stringify(config)

export const newSession = z.object({
  source: identifier,
  id: identifier.optional(),
  userId: optionalId,
  model: optionalText,
  title: optionalText,
  systemPrompt: optionalText,
  modelConfig: modelConfig.nullish(),
  parentSessionId: optionalId,
})

const paging = (defaultLimit: number) => ({
  limit: wholeNumber(1).max(MAX_LIMIT, `must be a whole number from 1 to ${MAX_LIMIT}`).default(defaultLimit),
  offset: wholeNumber(0).default(0),
  /** The `nextCursor` of the previous page (keyset paging: stable while rows are being added). */
  cursor: z.string().optional(),
})

export const listSessions = z.object({
  source: identifier.optional(),
  userId: identifier.optional(),
  idPrefix: identifier.optional(),
  startedAfter: epochMs.optional(),
  startedBefore: epochMs.optional(),
  ...paging(50),
})

export const messagesPage = z.object({
  limit: paging(100).limit,
  cursor: paging(100).cursor,
  fromId: wholeNumber(0).optional(),
})

export const dailyUsage = z.object({
  sessionId: identifier.optional(),
  since: epochMs.optional(),
  until: epochMs.optional(),
})

const SEARCH_SORTS = ['relevance', 'newest', 'oldest'] as const

export const searchOptions = z.object({
  sessionId: identifier.optional(),
  excludeLineageOf: identifier.optional(),
  source: oneOrMany(identifier).optional(),
  excludeSources: z.array(identifier).optional(),
  role: oneOrMany(z.enum(ROLES)).optional(),
  userId: identifier.optional(),
  since: epochMs.optional(),
  until: epochMs.optional(),
  sort: z.enum(SEARCH_SORTS, { error: `must be one of ${SEARCH_SORTS.join(', ')}` }).default('relevance'),
  includeEpisodes: z.boolean().default(true),
  includeRetrieval: z.boolean().default(false),
  now: epochMs.optional(),
  ...paging(10),
})

type SearchOptionsOutput = z.output<typeof searchOptions>

// The defaults, from the schema itself (one place for each): what the shortcut below starts from.
const SEARCH_DEFAULTS: SearchOptionsOutput = searchOptions.parse({})

const isId = (v: unknown) => typeof v === 'string' && v.length > 0 && isWellFormed(v)
/** The options nearly every search passes, each with a check that accepts a subset of what the schema does. */
const SIMPLE_SEARCH_OPTIONS: Record<string, (v: unknown) => boolean> = {
  limit: (v) => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MAX_LIMIT,
  offset: (v) => Number.isSafeInteger(v) && (v as number) >= 0,
  userId: isId,
  sessionId: isId,
}

/**
 * Search options, parsed: a plain object of only `limit`, `offset`, `userId` and `sessionId`, each
 * valid, is taken as it is over the schema's defaults; anything else goes through the schema (which also
 * words every error). Why: where each search follows a wait on the database, the schema's code and data
 * are cold by then, and its parse took 68 µs a search inside the PostgreSQL bench (0.5 µs in a warm loop)
 * against the shortcut's 6.7 µs. It accepts nothing the schema refuses and returns what the schema would
 * (tested).
 */
export function parseSearchOptions(options: unknown, action: string): SearchOptionsOutput {
  if (
    typeof options === 'object' &&
    options !== null &&
    Object.getPrototypeOf(options) === Object.prototype
  ) {
    const parsed: Record<string, unknown> = { ...SEARCH_DEFAULTS }
    let simple = true
    for (const key in options) {
      const value = (options as Record<string, unknown>)[key]
      if (value === undefined) continue
      const check = Object.hasOwn(SIMPLE_SEARCH_OPTIONS, key) ? SIMPLE_SEARCH_OPTIONS[key] : undefined
      if (check === undefined || !check(value)) {
        simple = false
        break
      }
      parsed[key] = value
    }
    if (simple) return parsed as SearchOptionsOutput
  }
  return parse(searchOptions, options, action)
}

export const endReason = text.min(1, 'must be a non-empty string')

export const newEpisode = z.object({
  sessionId: identifier,
  summary: text.refine((s) => s.trim() !== '', 'must be a non-empty summary'),
  content: optionalText,
  importance: wholeNumber(0).max(10, 'must be an integer from 0 to 10').default(5),
  tokenCount: wholeNumber(0).default(0),
  firstMessageId: wholeNumber(0).nullish(),
  lastMessageId: wholeNumber(0).nullish(),
})

export const continueSession = z.object({
  endReason,
  // Each message is checked by the codec, which names what is wrong with it.
  messages: z.array(z.unknown(), { error: 'must be an array of messages' }).default([]),
  episode: newEpisode.omit({ sessionId: true }).optional(),
})

const finiteAtLeastZero = z.number({ error: 'must be a number' }).finite().min(0, 'must be at least 0')

export const usageRecord = z.object({
  model: text.min(1, 'must name the model'),
  purpose: identifier,
  inputTokens: wholeNumber(0),
  outputTokens: wholeNumber(0),
  cacheReadTokens: wholeNumber(0).default(0),
  cacheWriteTokens: wholeNumber(0).default(0),
  costUsd: finiteAtLeastZero.default(0),
  latencyMs: finiteAtLeastZero.optional(),
})

export const pruneEpisodes = z
  .object({ maxCount: wholeNumber(0).optional(), maxTokens: wholeNumber(0).optional() })
  .refine((o) => o.maxCount !== undefined || o.maxTokens !== undefined, 'needs maxCount, maxTokens or both')

export const pruneSessions = z.object({
  olderThanDays: finiteAtLeastZero,
  source: identifier.optional(),
})

const usageGroup = usageRecord.omit({ latencyMs: true }).extend({ calls: wholeNumber(0) })
const modelCall = usageGroup.extend({ latencyMs: finiteAtLeastZero.nullish(), createdAt: epochMs })

export const importSession = z.object({
  session: newSession.extend({
    id: identifier,
    startedAt: epochMs,
    endedAt: epochMs.nullish(),
    endReason: endReason.nullish(),
  }),
  // Each message is checked by the codec, which names what is wrong with it.
  messages: z.array(z.unknown(), { error: 'must be an array of messages' }).default([]),
  usage: z.array(usageGroup).default([]),
  modelCalls: z.array(modelCall).optional(),
  episodes: z
    .array(
      newEpisode.omit({ sessionId: true, firstMessageId: true, lastMessageId: true }).extend({
        firstMessageIndex: wholeNumber(0).nullish(),
        lastMessageIndex: wholeNumber(0).nullish(),
        createdAt: epochMs.optional(),
        lastHitAt: epochMs.nullish(),
        hitCount: wholeNumber(0).default(0),
      }),
    )
    .default([]),
})

export const resolveSession = z.object({
  reference: identifier,
  source: identifier.optional(),
  userId: identifier.nullish(),
})

export const systemPrompt = z.string({ error: 'must be a string' }).pipe(text)
