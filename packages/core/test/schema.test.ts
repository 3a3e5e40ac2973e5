import { count, desc, eq, getTableColumns, sql, sum } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { openStore } from '../src/index.ts'
import { episodes, messages, modelCalls, sessions } from '../src/schema/index.ts'
import { MESSAGE_COLUMNS } from '../src/store/message-codec.ts'
import { usageStatements } from '../src/store/usage.ts'
import { tempDbPath, tempDir, withStore } from './helpers.ts'

const dir = tempDir()
const sqlNames = (table: Parameters<typeof getTableColumns>[0]) =>
  Object.values(getTableColumns(table)).map((column) => column.name)

it('decodes every schema column of sessions and episodes under its TypeScript name', async () => {
  await withStore({ url: tempDbPath(dir) }, async (store) => {
    const session = await store.createSession({ source: 'cli' })
    const episode = await store.addEpisode({ sessionId: session.id, summary: 'a summary' })
    const [listed] = await store.listSessions()
    const { searchText: _, ...episodeColumns } = getTableColumns(episodes)
    expect(Object.keys(session).sort()).toEqual(Object.keys(getTableColumns(sessions)).sort())
    expect(Object.keys(listed ?? {}).sort()).toEqual(Object.keys(getTableColumns(sessions)).sort())
    expect(Object.keys(episode).sort()).toEqual(Object.keys(episodeColumns).sort())
    expect(Object.keys((await store.getEpisodes(session.id))[0] ?? {}).sort()).toEqual(
      Object.keys(episodeColumns).sort(),
    )
  })
})

it('writes every column of messages and model_calls that the schema defines', () => {
  // `ref` is written by appendMessagesOnce only.
  const written = new Set(['id', 'session_id', 'ref', ...MESSAGE_COLUMNS.split(',').map((c) => c.trim())])
  expect(sqlNames(messages).filter((name) => !written.has(name))).toEqual([])
  const [insert] = usageStatements('s', { model: 'm', purpose: 'main', inputTokens: 1, outputTokens: 1 })
  expect(sqlNames(modelCalls).filter((name) => name !== 'id' && !insert?.sql.includes(name))).toEqual([])
})

it("runs typed queries of one's own on store.db (the README example)", async () => {
  const store = await openStore({ url: tempDbPath(dir) })
  const cli = await store.createSession({ source: 'cli', title: 'busy' })
  const quiet = await store.createSession({ source: 'cli', title: 'quiet' })
  await store.createSession({ source: 'telegram' })
  await store.appendMessages(cli.id, [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: 'two' },
  ])
  await store.recordUsage(cli.id, { model: 'm', purpose: 'main', inputTokens: 120, outputTokens: 30 })

  // The sessions of one source with their message counts and token totals, busiest first.
  const rows = await store.db
    .select({
      id: sessions.id,
      title: sessions.title,
      messages: count(messages.id),
      tokens: sql<number>`${sessions.inputTokens} + ${sessions.outputTokens}`,
    })
    .from(sessions)
    .leftJoin(messages, eq(messages.sessionId, sessions.id))
    .where(eq(sessions.source, 'cli'))
    .groupBy(sessions.id)
    .orderBy(desc(count(messages.id)))

  expect(rows).toEqual([
    { id: cli.id, title: 'busy', messages: 2, tokens: 150 },
    { id: quiet.id, title: 'quiet', messages: 0, tokens: 0 },
  ])
  const [total] = await store.db
    .select({ calls: count(), input: sum(modelCalls.inputTokens) })
    .from(modelCalls)
  expect(total).toEqual({ calls: 1, input: '120' })
  await store.close()
})
