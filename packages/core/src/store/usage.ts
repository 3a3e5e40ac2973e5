import type { Statement } from '../driver.ts'
import type { UsageRecord, UsageReport, UsageTotals } from '../types.ts'
import { parse } from '../validation.ts'
import * as args from './args.ts'
import type { StoreContext } from './context.ts'

/** The model_calls row and the session's running totals, written together. */
export function usageStatements(sessionId: string, input: UsageRecord): Statement[] {
  const action = 'Recording model usage'
  const id = parse(args.sessionId, sessionId, action)
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

interface UsageRow {
  purpose: string
  model: string
  calls: number
  input_tokens: number
  output_tokens: number
  cache_read_tokens: number
  cache_write_tokens: number
  cost_usd: number
}

const emptyTotals = (): UsageTotals => ({
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
})

function add(totals: UsageTotals, row: UsageRow): void {
  totals.calls += row.calls
  totals.inputTokens += row.input_tokens
  totals.outputTokens += row.output_tokens
  totals.cacheReadTokens += row.cache_read_tokens
  totals.cacheWriteTokens += row.cache_write_tokens
  totals.costUsd += row.cost_usd
}

/** Token and cost totals, overall and by purpose and model, for one session or the whole store. */
export async function readUsage(ctx: StoreContext, sessionId?: string): Promise<UsageReport> {
  if (sessionId !== undefined) parse(args.sessionId, sessionId, 'Reading usage')
  const rows = await ctx.read<UsageRow>(
    {
      sql: `SELECT purpose, model, count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
          sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens, sum(cost_usd) AS cost_usd
        FROM model_calls ${sessionId === undefined ? '' : 'WHERE session_id = ?'} GROUP BY purpose, model`,
      params: sessionId === undefined ? [] : [sessionId],
    },
    'Reading usage',
  )
  const report: UsageReport = { total: emptyTotals(), byPurpose: {}, byModel: {} }
  for (const row of rows) {
    add(report.total, row)
    report.byPurpose[row.purpose] ??= emptyTotals()
    report.byModel[row.model] ??= emptyTotals()
    add(report.byPurpose[row.purpose] as UsageTotals, row)
    add(report.byModel[row.model] as UsageTotals, row)
  }
  return report
}
