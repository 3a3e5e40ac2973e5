import type { IntegrityReport } from '../../types.ts'
import type { DialectConnection } from '../dialect.ts'

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * PostgreSQL keeps its own pages and builds the search vectors itself (generated columns), so the check
 * is that every table and both GIN indexes can be read to the end: a failure is reported, not thrown.
 */
export async function checkIntegrity(ctx: DialectConnection): Promise<IntegrityReport> {
  const scan = (table: string) =>
    ctx
      .read(
        { sql: `SELECT count(*) AS n FROM ${table} WHERE search_vector @@ to_tsquery('simple', 'engram')` },
        'Checking integrity',
      )
      .then(
        () => 'ok',
        (error: unknown) => reason(error),
      )
  const searchIndex = { messages: await scan('messages'), episodes: await scan('episodes') }
  const database = await ctx.read({ sql: 'SELECT count(*) AS n FROM sessions' }, 'Checking integrity').then(
    () => ['ok'],
    (error: unknown) => [reason(error)],
  )
  const ok = database[0] === 'ok' && searchIndex.messages === 'ok' && searchIndex.episodes === 'ok'
  return {
    ok,
    status: ok ? 'ok' : 'failed',
    database,
    searchIndex,
    fix: ok ? null : 'Check the server log; store.rebuildSearchIndex() recomputes every row search text.',
  }
}
