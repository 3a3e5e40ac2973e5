import { and, asc, eq, gte, lt, type SQL, sum } from 'drizzle-orm'
import type { Statement } from '../driver.ts'
import { modelCalls } from '../schema/model-calls.ts'
import type {
  DailyUsage,
  DailyUsageOptions,
  ModelCall,
  UsageGroup,
  UsageRecord,
  UsageReport,
  UsageTotals,
} from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'

/** The model_calls row and the session's running totals, written together. */
export function usageStatements(sessionId: string, input: UsageRecord): Statement[] {
  const action = 'Recording model usage'
  const id = args.checkSessionId(sessionId, action)
  const record = parse(args.usageRecord, input, action)
  return [
    {
      sql: `INSERT INTO model_calls (session_id, model, purpose, input_tokens, output_tokens, cache_read_tokens,
          cache_write_tokens, cost_usd, latency_ms, created_at)
        SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)`,
      params: [
        id,
        record.model,
        record.purpose,
        record.inputTokens,
        record.outputTokens,
        record.cacheReadTokens,
        record.cacheWriteTokens,
        record.costUsd,
        record.latencyMs ?? null,
        Date.now(),
        id,
      ],
    },
    {
      sql: `UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, cost_usd = cost_usd + ?
        WHERE id = ?`,
      params: [record.inputTokens, record.outputTokens, record.costUsd, id],
    },
  ]
}

/** One (purpose, model) group of model calls, summed: the drizzle select readUsage runs. */
const usageGroup = {
  purpose: modelCalls.purpose,
  model: modelCalls.model,
  // Aliased: PostgreSQL names every sum column "sum", and rows reach drizzle keyed by column name.
  calls: sum(modelCalls.calls).mapWith(Number).as('calls'),
  inputTokens: sum(modelCalls.inputTokens).mapWith(Number).as('input_tokens'),
  outputTokens: sum(modelCalls.outputTokens).mapWith(Number).as('output_tokens'),
  cacheReadTokens: sum(modelCalls.cacheReadTokens).mapWith(Number).as('cache_read_tokens'),
  cacheWriteTokens: sum(modelCalls.cacheWriteTokens).mapWith(Number).as('cache_write_tokens'),
  costUsd: sum(modelCalls.costUsd).mapWith(Number).as('cost_usd'),
}

const emptyTotals = (): UsageTotals => ({
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
})

function add(totals: UsageTotals, row: UsageTotals): void {
  totals.calls += row.calls
  totals.inputTokens += row.inputTokens
  totals.outputTokens += row.outputTokens
  totals.cacheReadTokens += row.cacheReadTokens
  totals.cacheWriteTokens += row.cacheWriteTokens
  totals.costUsd += row.costUsd
}

/**
 * The usage totals of one session (or the whole store) per purpose and model, ordered by both. One
 * grouped read of model_calls.
 */
export async function readUsageGroups(ctx: StoreContext, sessionId?: string): Promise<UsageGroup[]> {
  if (sessionId !== undefined) args.checkSessionId(sessionId, 'Reading usage')
  return ctx.query('Reading usage', (db) =>
    db
      .select(usageGroup)
      .from(modelCalls)
      .where(sessionId === undefined ? undefined : eq(modelCalls.sessionId, sessionId))
      .groupBy(modelCalls.purpose, modelCalls.model)
      .orderBy(asc(modelCalls.purpose), asc(modelCalls.model)),
  )
}

/** Token and cost totals, overall and by purpose and model, for one session or the whole store. */
export async function readUsage(ctx: StoreContext, sessionId?: string): Promise<UsageReport> {
  const report: UsageReport = { total: emptyTotals(), byPurpose: {}, byModel: {} }
  for (const row of await readUsageGroups(ctx, sessionId)) {
    add(report.total, row)
    report.byPurpose[row.purpose] ??= emptyTotals()
    report.byModel[row.model] ??= emptyTotals()
    add(report.byPurpose[row.purpose] as UsageTotals, row)
    add(report.byModel[row.model] as UsageTotals, row)
  }
  return report
}

/** The UTC day of a call, `YYYY-MM-DD`, in the store's dialect: created_at is in milliseconds. */
const callDay = (ctx: StoreContext): SQL<string> => ctx.dialect.utcDay(modelCalls.createdAt)

/**
 * Model calls summed by UTC day and purpose, oldest day first: what a cost chart draws. One grouped read;
 * `since` bounds the rows read, so a chart of the last weeks does not sum the whole history.
 */
export async function readDailyUsage(
  ctx: StoreContext,
  options: DailyUsageOptions = {},
): Promise<DailyUsage[]> {
  const action = 'Reading usage by day'
  const { sessionId, since, until } = parse(args.dailyUsage, options, action)
  const day = callDay(ctx)
  return ctx.query(action, (db) =>
    db
      .select({
        day: day.as('day'),
        purpose: modelCalls.purpose,
        calls: usageGroup.calls,
        inputTokens: usageGroup.inputTokens,
        outputTokens: usageGroup.outputTokens,
        costUsd: usageGroup.costUsd,
      })
      .from(modelCalls)
      .where(
        and(
          sessionId === undefined ? undefined : eq(modelCalls.sessionId, sessionId),
          since === undefined ? undefined : gte(modelCalls.createdAt, since),
          until === undefined ? undefined : lt(modelCalls.createdAt, until),
        ),
      )
      .groupBy(day, modelCalls.purpose)
      .orderBy(day, modelCalls.purpose),
  )
}

/** One model_calls row as given (an exported call, with its own time and latency). */
export function modelCallStatement(
  sessionId: string,
  call: Omit<ModelCall, 'latencyMs'> & { latencyMs?: number | null },
): Statement {
  return {
    sql: `INSERT INTO model_calls (session_id, model, purpose, calls, input_tokens, output_tokens, cache_read_tokens,
        cache_write_tokens, cost_usd, latency_ms, created_at)
      SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)`,
    params: [
      sessionId,
      call.model,
      call.purpose,
      call.calls,
      call.inputTokens,
      call.outputTokens,
      call.cacheReadTokens,
      call.cacheWriteTokens,
      call.costUsd,
      call.latencyMs ?? null,
      call.createdAt,
      sessionId,
    ],
  }
}
