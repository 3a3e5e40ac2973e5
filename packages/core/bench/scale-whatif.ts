/**
 * Where the bytes of a store go, and what candidate cuts would save, measured on copies of one corpus
 * (the scale benchmark's realistic mix, written through appendMessages). Nothing here changes the schema
 * of a real store: each cut is applied to a throw-away copy and the file is VACUUMed before measuring.
 *
 *   pnpm tsx packages/core/bench/scale-whatif.ts [--messages 100000]
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore } from '../src/index.ts'
import { bytesByObject, checkpoint, type Db, openRaw } from './raw.ts'
import { Corpus } from './scale-corpus.ts'
import { fmt, log, table } from './scale-stats.ts'

const argv = process.argv.slice(2)
const i = argv.indexOf('--messages')
const MESSAGES = i >= 0 ? Number(argv[i + 1]) : 100_000
const tmp = mkdtempSync(join(tmpdir(), 'engram-whatif-'))
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }))

const base = join(tmp, 'base.db')
const store = await openStore({ url: base })
await new Corpus(store, 20250101).growTo(MESSAGES, (n) => log(`corpus: ${fmt(n)}`))
await store.close()

const perMessage = (path: string) => statSync(path).size / MESSAGES

/** Applies `cut` to a copy of the corpus, VACUUMs it and returns its bytes per message. */
function onCopy(name: string, cut: (db: Db) => void): number {
  const path = join(tmp, `${name}.db`)
  copyFileSync(base, path)
  const db = openRaw(path)
  cut(db)
  db.exec('VACUUM')
  checkpoint(db)
  db.close()
  const bytes = perMessage(path)
  rmSync(path)
  return bytes
}

const db = openRaw(base)
const column = (sql: string) => (db.prepare(sql).pluck().get() as number) / MESSAGES
const columns = {
  content: column('SELECT sum(coalesce(length(CAST(content AS BLOB)), 0)) FROM messages'),
  searchText: column('SELECT sum(coalesce(length(CAST(search_text AS BLOB)), 0)) FROM messages'),
  toolCalls: column('SELECT sum(coalesce(length(CAST(tool_calls AS BLOB)), 0)) FROM messages'),
  rowsWithSearchText: column('SELECT count(*) FROM messages WHERE search_text IS NOT NULL') * 100,
}
const objects = bytesByObject(db)
db.close()

const baseline = perMessage(base)
const vacuumed = onCopy('vacuum', () => undefined)
const cuts: [string, number][] = [
  ['as built (after checkpoint)', baseline],
  ['VACUUM only', vacuumed],
  [
    "FTS5 'optimize' (merge the index b-trees into one)",
    onCopy('optimize', (d) => d.exec("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")),
  ],
  [
    'search_text not stored (would be computed in the trigger path; index unchanged)',
    onCopy('no-search-text', (d) => {
      d.exec('DROP TRIGGER messages_fts_update')
      d.exec('UPDATE messages SET search_text = NULL')
    }),
  ],
  [
    'search_text stored only for CJK rows (tool-call rows indexed from tool_calls in the trigger)',
    onCopy('cjk-only', (d) => {
      d.exec('DROP TRIGGER messages_fts_update')
      d.exec(`UPDATE messages SET search_text = NULL WHERE search_text NOT LIKE '%' || char(8203) || '%'`)
    }),
  ],
  [
    'without messages_session_idx (restore would scan)',
    onCopy('no-session-idx', (d) => d.exec('DROP INDEX messages_session_idx')),
  ],
]

console.log(
  [
    `\nengram storage what-if at ${fmt(MESSAGES)} messages`,
    table('Column bytes per message (raw text, before page overhead)', [
      ['column', 'bytes / message'],
      ['content', fmt(columns.content)],
      ['tool_calls (JSON)', fmt(columns.toolCalls)],
      ['search_text', fmt(columns.searchText)],
      ['rows with a search_text (%)', fmt(columns.rowsWithSearchText, 1)],
    ]),
    table('Objects (dbstat)', [
      ['object', 'bytes / message'],
      ...objects.filter((o) => o.bytes / MESSAGES >= 1).map((o) => [o.name, fmt(o.bytes / MESSAGES)]),
    ]),
    table('Cuts, each on a VACUUMed copy', [
      ['variant', 'bytes / message', 'saved vs VACUUM only'],
      ...cuts.map(([name, bytes]) => [name, fmt(bytes), fmt(vacuumed - bytes)]),
    ]),
  ].join('\n'),
)
