import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll } from 'vitest'
import type { Statement, StorageDriver } from '../src/driver.ts'
import {
  type DriverName,
  openStore,
  type SessionExport,
  type Store,
  type StoreOptions,
} from '../src/index.ts'

/** A fresh folder under the OS temp dir, removed when the test file ends. */
export function tempDir(prefix = 'engram-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * A copy of the migrations folder `from` whose journal ends before the first migration whose tag `isTag`
 * matches (that migration is not the first): to open a database as the code before it left it. Returns the
 * copy and the tag of the migration it stops before.
 */
export function migrationsBefore(
  from: string,
  isTag: (tag: string) => boolean,
): { folder: string; tag: string } {
  const folder = join(mkdtempSync(join(tmpdir(), 'engram-migrations-before-')), basename(from))
  cpSync(from, folder, { recursive: true })
  const journalPath = join(folder, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] }
  const at = journal.entries.findIndex((e) => isTag(e.tag))
  if (at <= 0)
    throw new Error(
      `no migration after the first matches in ${from} (${journal.entries.length} in the journal)`,
    )
  const tag = journal.entries[at]?.tag as string
  journal.entries = journal.entries.slice(0, at)
  writeFileSync(journalPath, JSON.stringify(journal))
  return { folder, tag }
}

/**
 * `inner` with `seen` called on each statement it executes on its own (not in a batch), before the statement
 * runs: a test's record of the reads a store makes, or a hook that acts between two of them.
 */
export function watchedDriver(
  inner: StorageDriver,
  seen: (statement: Statement) => void | Promise<void>,
): StorageDriver {
  return {
    ...inner,
    name: inner.name,
    capabilities: inner.capabilities,
    execute: async (statement) => {
      await seen(statement)
      return inner.execute(statement)
    },
    batch: (statements) => inner.batch(statements),
    close: () => inner.close(),
  }
}

let counter = 0
export function tempDbPath(dir: string): string {
  counter += 1
  return join(dir, `store-${process.pid}-${counter}.db`)
}

/** The SQLite drivers; the PostgreSQL ones have test files of their own (they need a server or PGlite). */
const ALL_DRIVERS = ['better-sqlite3', 'libsql'] as const satisfies DriverName[]

/** The drivers a conformance suite runs on: all, or those named in ENGRAM_TEST_DRIVERS (comma-separated). */
export function driversUnderTest(): (typeof ALL_DRIVERS)[number][] {
  const filter = process.env.ENGRAM_TEST_DRIVERS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return filter?.length ? ALL_DRIVERS.filter((d) => filter.includes(d)) : ALL_DRIVERS
}

/** Opens a store, hands it to `use`, and closes it whatever happens. */
export async function withStore<T>(options: StoreOptions, use: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(options)
  try {
    return await use(store)
  } finally {
    await store.close()
  }
}

/** A session as a copy must keep it: all but message and episode ids (episodes point at positions). */
export function comparable(dump: SessionExport) {
  const position = new Map(dump.messages.map((m, i) => [m.id, i]))
  return {
    ...dump,
    messages: dump.messages.map(({ id: _, ...m }) => m),
    episodes: dump.episodes.map(({ id: _, firstMessageId, lastMessageId, ...e }) => ({
      ...e,
      first: position.get(firstMessageId ?? -1) ?? null,
      last: position.get(lastMessageId ?? -1) ?? null,
    })),
  }
}
