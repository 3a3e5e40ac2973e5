/**
 * Conversation windows: an FTS index over windows, or an expansion at query time? This experiment
 * measures both on the three axes the choice depends on.
 *
 *   npx tsx packages/core/eval/window-index-experiment.ts [--appends N] [--rounds R]
 *
 * Quality: the conversation set (eval/conversations/build-conversations.ts), every question parsed the same way
 * (question words dropped), matched with the OR of its terms under the conversation's user, top 40:
 *   messages        BM25 over single messages (no windows);
 *   query-time      the store's ranking with windows and follow only (rank.ts);
 *   index (back)    an extra FTS5 index over (previous + current) message, which never changes once
 *                   written; a message scores the best window that holds it;
 *   index (centred) an extra FTS5 index over (previous + current + next), rewritten when the next
 *                   message arrives.
 * Cost: appends of the benchmark's generated messages (one transaction each, as W1) into a store, a
 * store plus a contentless backward-window index, and a store plus a centred one; bytes per message
 * after a checkpoint. Rounds are interleaved; medians are printed with the ratio to the plain store.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Dataset, Generator } from '../bench/data.ts'
import { type Db, openRaw } from '../bench/raw.ts'
import { openStore } from '../src/index.ts'
import { joinTerms, parseSearchQuery } from '../src/search/query.ts'
import { isTimeQuestion, stripQuestionWords, withHanBigrams } from '../src/search/question-words.ts'
import { type Candidate, RANK_FEATURES, type RankFeatures, rankCandidates } from '../src/search/rank.ts'
import { conversationData } from './conversation-eval.ts'

const args = process.argv.slice(2)
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(name)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const APPENDS = flag('--appends', 3000)
const ROUNDS = flag('--rounds', 3)
const POOL = 40
const tmp = mkdtempSync(join(tmpdir(), 'engram-window-experiment-'))

const WINDOW_TABLE = (name: string, options = '') =>
  `CREATE VIRTUAL TABLE ${name} USING fts5(body, content=''${options}, tokenize='porter unicode61 remove_diacritics 2')`
const indexed = (alias: string) => `coalesce(${alias}.search_text, ${alias}.content, '')`
const PREV = (id: string) =>
  `(SELECT p.id FROM messages p WHERE p.session_id = ${id.replace('.id', '.session_id')} AND p.id < ${id} ORDER BY p.id DESC LIMIT 1)`

/** DDL that adds a window index kept up to date by a trigger on messages. */
const WINDOW_DDL = {
  back: [
    WINDOW_TABLE('window_fts'),
    `CREATE TRIGGER window_fts_insert AFTER INSERT ON messages BEGIN
      INSERT INTO window_fts(rowid, body) VALUES (new.id,
        coalesce((SELECT ${indexed('p')} FROM messages p WHERE p.id = ${PREV('new.id')}), '') || ' ' || ${indexed('new')});
    END`,
  ],
  centred: [
    WINDOW_TABLE('window_fts', ', contentless_delete=1'),
    `CREATE TRIGGER window_fts_insert AFTER INSERT ON messages BEGIN
      DELETE FROM window_fts WHERE rowid = ${PREV('new.id')};
      INSERT INTO window_fts(rowid, body) SELECT p.id,
        coalesce((SELECT ${indexed('q')} FROM messages q WHERE q.id = ${PREV('p.id')}), '') || ' ' || ${indexed('p')} || ' ' || ${indexed('new')}
        FROM messages p WHERE p.id = ${PREV('new.id')};
      INSERT INTO window_fts(rowid, body) VALUES (new.id,
        coalesce((SELECT ${indexed('p')} FROM messages p WHERE p.id = ${PREV('new.id')}), '') || ' ' || ${indexed('new')});
    END`,
  ],
}

// ---------------------------------------------------------------------------------------------- quality
async function quality() {
  const data = conversationData()
  const path = join(tmp, 'quality.db')
  const store = await openStore({ url: path })
  const keyById = new Map<number, string>()
  const order: number[] = []
  for (const c of data.conversations) {
    for (const s of c.sessions) {
      const session = await store.createSession({ source: 'chat', userId: c.key })
      const stored = await store.appendMessages(
        session.id,
        s.messages.map((m) => ({ role: m.role, name: m.name, content: m.content, timestamp: m.timestamp })),
      )
      for (const [i, m] of stored.entries()) keyById.set(m.id, s.messages[i]?.key as string)
      order.push(...stored.map((m) => m.id), -1)
    }
  }
  await store.close()
  const prev = new Map<number, number | null>()
  const next = new Map<number, number | null>()
  order.forEach((id, i) => {
    if (id < 0) return
    prev.set(id, (order[i - 1] ?? -1) >= 0 ? (order[i - 1] as number) : null)
    next.set(id, (order[i + 1] ?? -1) >= 0 ? (order[i + 1] as number) : null)
  })

  const db = openRaw(path)
  const meta = new Map(
    (
      db
        .prepare(
          "SELECT id, session_id, name, content, coalesce(search_text, content, '') AS body, timestamp FROM messages",
        )
        .all() as {
        id: number
        session_id: string
        name: string | null
        content: string | null
        body: string
        timestamp: number
      }[]
    ).map((r) => [r.id, r]),
  )
  for (const [name, centred] of [
    ['window_back', false],
    ['window_centred', true],
  ] as const) {
    db.exec(WINDOW_TABLE(name))
    const insert = db.prepare(`INSERT INTO ${name}(rowid, body) VALUES (?, ?)`)
    const text = (id: number | null | undefined) => (id == null ? '' : (meta.get(id)?.body ?? ''))
    db.transaction(() => {
      for (const id of meta.keys()) {
        const body = [text(prev.get(id)), text(id), centred ? text(next.get(id)) : ''].join(' ')
        insert.run(id, body)
      }
    })()
  }
  const matches = (table: string, match: string, user: string) =>
    db
      .prepare(
        `SELECT f.rowid AS id, -f.rank AS score FROM ${table} f JOIN messages m ON m.id = f.rowid
         JOIN sessions s ON s.id = m.session_id WHERE ${table} MATCH ? AND s.user_id = ? ORDER BY f.rank LIMIT ?`,
      )
      .all(match, user, POOL) as { id: number; score: number }[]

  const onlyWindows = Object.fromEntries(
    RANK_FEATURES.map((f) => [f, f === 'windows' || f === 'follow']),
  ) as RankFeatures
  const spread = (
    rows: { id: number; score: number }[],
    covers: (id: number) => (number | null | undefined)[],
  ) => {
    const best = new Map<number, number>()
    for (const { id, score } of rows)
      for (const m of covers(id)) if (m != null) best.set(m, Math.max(best.get(m) ?? 0, score))
    return [...best.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id)
  }
  const variants: Record<string, (match: string, user: string, question: string) => number[]> = {
    messages: (match, user) => matches('messages_fts', match, user).map((r) => r.id),
    'query-time': (match, user, question) => {
      const candidates = new Map<number, Candidate>()
      const add = (id: number, relevance: number) => {
        const m = meta.get(id)
        if (!m || candidates.has(id)) return
        candidates.set(id, {
          id,
          sessionId: m.session_id,
          relevance,
          window: 0,
          windowIndexed: false,
          prev: prev.get(id) ?? null,
          next: next.get(id) ?? null,
          name: m.name,
          content: m.content,
          timestamp: m.timestamp,
        })
      }
      const rows = matches('messages_fts', match, user)
      for (const r of rows) add(r.id, r.score)
      for (const r of rows) for (const n of [prev.get(r.id), next.get(r.id)]) if (n != null) add(n, 0)
      const q = { text: question, timeQuestion: isTimeQuestion(question), ranges: [] }
      return rankCandidates(candidates, q, onlyWindows).map((r) => r.id)
    },
    'index (back)': (match, user) => spread(matches('window_back', match, user), (id) => [id, prev.get(id)]),
    'index (centred)': (match, user) =>
      spread(matches('window_centred', match, user), (id) => [id, prev.get(id), next.get(id)]),
  }
  const recall: Record<string, { tune: number[]; heldout: number[] }> = {}
  const split = new Map(data.conversations.map((c) => [c.key, c.split]))
  for (const q of data.questions) {
    const text = stripQuestionWords(q.question)
    const terms = parseSearchQuery(
      withHanBigrams(
        text,
        parseSearchQuery(text).map((t) => t.text),
      ),
    )
    const match = joinTerms(terms, 'OR')
    for (const [name, run] of Object.entries(variants)) {
      const found = run(match, q.conversation, q.question).slice(0, 5)
      const hit =
        q.answers.filter((key) => found.some((id) => keyById.get(id) === key)).length / q.answers.length
      recall[name] ??= { tune: [], heldout: [] }
      recall[name][split.get(q.conversation) ?? 'tune'].push(hit)
    }
  }
  db.close()
  const mean = (xs: number[]) => ((100 * xs.reduce((a, b) => a + b, 0)) / (xs.length || 1)).toFixed(1)
  console.log('quality (recall@5, windows and follow only, no other technique)')
  for (const [name, r] of Object.entries(recall))
    console.log(`  ${name.padEnd(16)} tune ${mean(r.tune)}  held-out ${mean(r.heldout)}`)
}

// ---------------------------------------------------------------------------------------------- cost
async function appendRun(data: Dataset, variant: 'store' | 'back' | 'centred', round: number) {
  const path = join(tmp, `cost-${variant}-${round}.db`)
  const setup = await openStore({ url: path })
  for (const s of data.sessions) await setup.createSession({ id: s.id, source: 'bench' })
  await setup.close()
  if (variant !== 'store') {
    const db: Db = openRaw(path)
    for (const ddl of WINDOW_DDL[variant]) db.exec(ddl)
    db.close()
  }
  const store = await openStore({ url: path })
  const start = performance.now()
  for (const { sessionId, message } of data.all) await store.appendMessage(sessionId, message)
  const ms = performance.now() - start
  await store.close()
  const bytes = statSync(path).size / data.all.length
  rmSync(path, { force: true })
  return { perSecond: (data.all.length / ms) * 1000, bytes }
}

async function cost() {
  const perSession = 50
  const data = new Generator(20240607).dataset(Math.ceil(APPENDS / perSession), perSession, 'w')
  const runs: Record<string, { perSecond: number[]; bytes: number[] }> = {}
  const variants = ['store', 'back', 'centred'] as const
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of [...variants.slice(round % 3), ...variants.slice(0, round % 3)]) {
      const r = await appendRun(data, variant, round)
      runs[variant] ??= { perSecond: [], bytes: [] }
      runs[variant].perSecond.push(r.perSecond)
      runs[variant].bytes.push(r.bytes)
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
  const base = runs.store as { perSecond: number[]; bytes: number[] }
  console.log(
    `cost (${data.all.length} appends, one transaction each, median of ${ROUNDS} interleaved rounds)`,
  )
  for (const variant of variants) {
    const r = runs[variant] as { perSecond: number[]; bytes: number[] }
    console.log(
      `  ${variant.padEnd(8)} ${median(r.perSecond).toFixed(0).padStart(6)} appends/s (×${(median(r.perSecond) / median(base.perSecond)).toFixed(2)})` +
        `  ${median(r.bytes).toFixed(0).padStart(5)} B/message (×${(median(r.bytes) / median(base.bytes)).toFixed(2)})`,
    )
  }
}

try {
  await quality()
  await cost()
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
