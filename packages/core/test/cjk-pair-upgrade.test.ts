import { fileURLToPath } from 'node:url'
import type { PGlite } from '@electric-sql/pglite'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { betterSqlite3Driver } from '../src/drivers/better-sqlite3.ts'
import { openStore, openStoreWithDriver, type Store } from '../src/index.ts'
import { INDEX_MARK, splitCjk, toIndexText } from '../src/search/cjk.ts'
import { migrationsBefore, tempDbPath, tempDir, watchedDriver } from './helpers.ts'
import { newPglite } from './pglite-template.ts'
import { pgliteBefore } from './postgres-helpers.ts'

/** An index text as Engram wrote it before migration 0016: one token per CJK character. */
const oneTokenPerCharacter = (text: string) => splitCjk(text, INDEX_MARK) ?? text

const FACT = '我们决定把发布窗口改到周四下午'
const SUMMARY = '讨论了数据库迁移的计划'
const ITEM = '用户喜欢用深色主题'

/** What a search of each kind finds: the upgrade is done when all three are found. */
async function finds(store: Store): Promise<{ message: boolean; episode: boolean; item: boolean }> {
  const hits = await store.search('发布窗口')
  const episodes = await store.search('数据库迁移')
  const items = await store.graph.items.search('me', { prefix: '', query: '深色主题', limit: 5 })
  return {
    message: hits.some((h) => h.kind === 'message' && h.snippet.includes('«发布窗口»')),
    episode: episodes.some((h) => h.kind === 'episode' && h.snippet.includes('数据库迁移')),
    item: items.some((i) => i.key === 'theme'),
  }
}

/** Writes a message, an episode and a graph item, whatever the index format of the code. */
async function writeRows(store: Store): Promise<void> {
  const session = await store.createSession({ source: 'old' })
  await store.appendMessages(session.id, [
    { role: 'user', content: FACT },
    { role: 'assistant', content: 'Noted: Thursday afternoon.' },
  ])
  await store.addEpisode({ sessionId: session.id, summary: SUMMARY })
  await store.graph.items.put('me', [{ namespace: 'prefs', key: 'theme', value: '{}', text: ITEM }])
}

describe('migration 0016 on SQLite: a database indexed one token per CJK character', () => {
  const dir = tempDir('engram-cjk-pairs-')
  // the migrations as they were before 0016
  const { folder: before } = migrationsBefore(fileURLToPath(new URL('../drizzle', import.meta.url)), (tag) =>
    tag.startsWith('0016_'),
  )

  /** A file with a message, an episode and a graph item as the code before 0016 indexed them. */
  async function oldFile(): Promise<string> {
    const path = tempDbPath(dir)
    const old = await openStore({ url: path, migrationsFolder: before })
    await writeRows(old)
    await old.close()
    const db = new Database(path)
    for (const { id, content } of db
      .prepare("SELECT id, content FROM messages WHERE search_text = ''")
      .all() as { id: number; content: string }[]) {
      db.prepare('DELETE FROM messages_fts WHERE rowid = ?').run(id)
      db.prepare('INSERT INTO messages_fts(rowid, body) VALUES (?, ?)').run(id, oneTokenPerCharacter(content))
    }
    db.prepare('UPDATE episodes SET search_text = ?').run(oneTokenPerCharacter(SUMMARY))
    db.prepare('UPDATE graph_items SET search_text = ?').run(oneTokenPerCharacter(ITEM))
    db.close()
    return path
  }

  it('is indexed again on the first open, in pairs, and opens of a new database have nothing to do', async () => {
    const path = await oldFile()
    // this code reads pairs: on the old index it finds none of them
    const stale = await openStore({ url: path, migrationsFolder: before })
    expect(await finds(stale)).toEqual({ message: false, episode: false, item: false })
    await stale.close()

    const upgraded = await openStore({ url: path })
    try {
      expect(await finds(upgraded)).toEqual({ message: true, episode: true, item: true })
      expect((await upgraded.checkIntegrity()).ok).toBe(true)
    } finally {
      await upgraded.close()
    }
    const after = new Database(path, { readonly: true })
    expect(after.prepare('SELECT count(*) AS n FROM engram_pending_tasks').get()).toEqual({ n: 0 })
    after.close()

    const fresh = tempDbPath(dir)
    const store = await openStore({ url: fresh })
    await writeRows(store)
    expect(await finds(store)).toEqual({ message: true, episode: true, item: true })
    await store.close()
    const created = new Database(fresh, { readonly: true })
    expect(created.prepare('SELECT count(*) AS n FROM engram_pending_tasks').get()).toEqual({ n: 0 })
    created.close()
  })

  it('a store that finds the task done by another after it read the task makes no text twice', async () => {
    const path = await oldFile()
    // a driver on which another store upgrades the file after this one read the task and before it reads
    // the graph items: it then reads the pairs the other wrote, where it expected one token per character
    let other = true
    const driver = watchedDriver(betterSqlite3Driver({ path }), async (statement) => {
      if (other && statement.sql.includes('FROM graph_items WHERE search_text LIKE')) {
        other = false
        await (await openStore({ url: path })).close()
      }
    })
    const store = await openStoreWithDriver(driver, {})
    try {
      expect(await finds(store)).toEqual({ message: true, episode: true, item: true })
    } finally {
      await store.close()
    }
    const after = new Database(path, { readonly: true })
    expect(after.prepare('SELECT search_text AS text FROM graph_items').get()).toEqual({
      text: toIndexText(ITEM),
    })
    after.close()
  })
})

describe('migration 0012 on PostgreSQL (PGlite): search texts of one lexeme per CJK character', () => {
  let database: PGlite
  beforeAll(async () => {
    database = await newPglite()
  })
  afterAll(() => database?.close())

  it('are made again on the first open, and the searches find each kind of row', async () => {
    const { driver } = await pgliteBefore(database, 'cjk_pairs_upgrade', (tag) => tag.startsWith('0012_'))
    await driver.batch([
      { sql: "INSERT INTO sessions (id, source, started_at) VALUES ('old-s', 'cli', 1)" },
      {
        sql: 'INSERT INTO messages (session_id, role, content, search_text, timestamp) VALUES (?, ?, ?, ?, ?)',
        params: ['old-s', 'user', FACT, oneTokenPerCharacter(FACT), 1],
      },
      {
        sql: 'INSERT INTO episodes (session_id, summary, search_text, created_at) VALUES (?, ?, ?, ?)',
        params: ['old-s', SUMMARY, oneTokenPerCharacter(SUMMARY), 2],
      },
      {
        sql: `INSERT INTO graph_items (owner, namespace, key, value, search_text, created_at, updated_at)
          VALUES ('me', 'prefs', 'theme', '{}', ?, 3, 3)`,
        params: [oneTokenPerCharacter(ITEM)],
      },
    ])
    const store = await openStoreWithDriver(driver, {})
    try {
      expect(await finds(store)).toEqual({ message: true, episode: true, item: true })
      const [task] = (
        await driver.execute<{ n: number }>({ sql: 'SELECT count(*)::int AS n FROM engram_pending_tasks' })
      ).rows
      expect(task?.n).toBe(0)
    } finally {
      await store.close()
    }
  })
})
