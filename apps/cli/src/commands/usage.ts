import type { UsageReport, UsageTotals } from '@engram/core'
import type { Command } from 'commander'
import { createContext } from '../context.ts'
import { formatCost, formatInt, type Io, type Output } from '../output.ts'
import { findSession } from '../sessions.ts'

/** The Hermes health rule: auxiliary work (compression, nudges, search) costs at most 20% of main tokens. */
export const AUXILIARY_RULE = 0.2

export interface UsageSummary {
  report: UsageReport
  mainTokens: number
  auxiliaryTokens: number
  /** auxiliary / main tokens; null while no main call has been recorded. */
  auxiliaryRatio: number | null
  withinRule: boolean | null
}

const tokensOf = (t: UsageTotals | undefined) => (t ? t.inputTokens + t.outputTokens : 0)

export function summarizeUsage(report: UsageReport): UsageSummary {
  const mainTokens = tokensOf(report.byPurpose.main)
  const auxiliaryTokens = tokensOf(report.total) - mainTokens
  const auxiliaryRatio = mainTokens === 0 ? null : auxiliaryTokens / mainTokens
  return {
    report,
    mainTokens,
    auxiliaryTokens,
    auxiliaryRatio,
    withinRule: auxiliaryRatio === null ? null : auxiliaryRatio <= AUXILIARY_RULE,
  }
}

function totalsRows(totals: Record<string, UsageTotals>): string[][] {
  return Object.entries(totals)
    .sort(([, a], [, b]) => tokensOf(b) - tokensOf(a))
    .map(([name, t]) => [
      name,
      formatInt(t.calls),
      formatInt(t.inputTokens),
      formatInt(t.outputTokens),
      formatInt(t.cacheReadTokens),
      formatCost(t.costUsd),
    ])
}

const HEAD = ['CALLS', 'INPUT', 'OUTPUT', 'CACHE READ', 'COST']
const ALIGN: ('left' | 'right')[] = ['left', 'right', 'right', 'right', 'right', 'right']

/** Prints the usage report: by purpose, by model, and the auxiliary/main ratio against the 20% rule. */
export function printUsage(out: Output, summary: UsageSummary): void {
  const { report } = summary
  if (report.total.calls === 0) {
    out.line('No model calls recorded yet.')
    return
  }
  out.table(['PURPOSE', ...HEAD], totalsRows(report.byPurpose), { align: ALIGN })
  out.line()
  out.table(['MODEL', ...HEAD], totalsRows(report.byModel), { align: ALIGN })
  out.line()
  if (summary.auxiliaryRatio === null) {
    out.line(`Auxiliary tokens: ${formatInt(summary.auxiliaryTokens)} (no main calls to compare with).`)
    return
  }
  const percent = `${(summary.auxiliaryRatio * 100).toFixed(1)}%`
  const verdict = summary.withinRule
    ? out.color.green(`✓ auxiliary tokens are ${percent} of main (rule: ≤ 20%)`)
    : out.color.red(
        `✗ auxiliary tokens are ${percent} of main, above the 20% rule of the Hermes design: raise trigger_ratio, lower summary_max_tokens or use a cheaper compress_model`,
      )
  out.line(
    `${verdict}  ${out.color.dim(`main ${formatInt(summary.mainTokens)} · auxiliary ${formatInt(summary.auxiliaryTokens)} · total cost ${formatCost(report.total.costUsd)}`)}`,
  )
}

/** `engram usage [--session id]`: tokens and cost by purpose and model, and the 20% rule. */
export function registerUsage(program: Command, io: Io): void {
  program
    .command('usage')
    .description('tokens and cost by purpose and model; flags auxiliary work above 20% of main')
    .option('--session <id>', 'one session (id, prefix or "latest") instead of the whole store')
    .action(async (_options, command: Command) => {
      const ctx = createContext<{ session?: string }>(command, io)
      const { session, report } = await ctx.withStore(
        async (store) => {
          const found = ctx.options.session ? await findSession(store, ctx.options.session) : null
          return {
            session: found?.id ?? null,
            report: await store.usage(found ? { sessionId: found.id } : {}),
          }
        },
        { create: false },
      )
      const summary = summarizeUsage(report)
      if (ctx.out.json) return ctx.out.printJson({ sessionId: session, ...summary })
      printUsage(ctx.out, summary)
    })
}
