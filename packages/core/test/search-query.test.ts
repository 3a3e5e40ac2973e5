import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toMatchQuery } from '../src/dialects/sqlite/match.ts'
import { toIndexText } from '../src/search/cjk.ts'
import { MAX_QUERY_TERMS, parseSearchQuery } from '../src/search/query.ts'
import { workGrowth } from '../src/testing/work.ts'

const ROWS: Record<number, string> = {
  1: 'I love C++ and templates',
  2: 'the problem is the unterminated string literal',
  3: 'hello world, this is a test',
  4: 'run `pnpm chat-send` to post the message',
  5: 'milestone P2.2 is done',
  6: 'edit my-app.config.ts and restart',
  7: 'the column sp_new1 was added',
  8: 'we are deploying to production tonight',
  9: 'deployment finished without errors',
  10: 'the deployed build is v2',
  11: 'set col:term in the config',
  12: 'we decided on the database migration plan: expand then contract',
  13: 'the database is PostgreSQL 16',
  14: 'migration scripts live in drizzle/',
  15: 'what did you have for lunch?',
  16: '我们用FastAPI做后端',
  17: 'Agent通信协议已经完成',
  18: '测试进度100%完成',
  19: '后来我们去吃饭了',
  20: '前端和后端分离的架构',
  21: '데이터베이스를 PostgreSQL로 마이그레이션했습니다',
  22: 'カタカナのテストとデータベースの移行',
  23: '我们决定用PostgreSQL作为数据库',
  24: 'NOT a boolean AND query OR is it',
  25: 'the quick brown fox',
  26: '東京に行きます',
}

let db: Database.Database
let stmt: Database.Statement

function search(q: string, mode?: 'any' | 'all'): number[] {
  const match = toMatchQuery(q, mode ? { mode } : {})
  if (match === null) return []
  return (stmt.all(match) as { rowid: number }[]).map((r) => r.rowid)
}
const sorted = (a: number[]) => [...a].sort((x, y) => x - y)

beforeAll(() => {
  db = new Database(':memory:')
  db.exec("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
  const ins = db.prepare('INSERT INTO t(rowid, body) VALUES (?, ?)')
  for (const [id, text] of Object.entries(ROWS)) ins.run(Number(id), toIndexText(text) ?? text)
  stmt = db.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t), rowid LIMIT 50')
})
afterAll(() => db.close())

const TERM_FIELDS = ['cjk', 'kind', 'phrase', 'prefix', 'primary', 'stop', 'text']

describe('toMatchQuery output', () => {
  it.each([
    ['做后端', '"做后 后端"'],
    ['FastAPI 做后端', '"FastAPI" OR "做后 后端"'],
    // one CJK character: the pairs it starts and a run's last character
    ['后', '"后" *'],
    ['chat-send', '"chat-send"'],
    ['P2.2', '"P2.2"'],
    ['my-app.config.ts', '"my-app.config.ts"'],
    ['sp_new1', '"sp_new1"'],
    ['deploy*', '"deploy" * OR "deplo" *'],
    ['migrat*', '"migrat" *'],
    ['col:term', '"col:term"'],
    ['C++', '"C"'],
    ['"unterminated', '"unterminated"'],
    ['(problem', '"problem"'],
    ['{test}', '"test"'],
    ['a AND OR b', '"b"'],
    ['"quoted phrase" deploy', '"quoted phrase" OR "deploy"'],
    ['say "hello ""world', '"hello" OR "world"'],
    ['the', '"the"'],
    ['的', '"的" *'],
    ['what did we decide about the database migration?', '"decide" OR "database" OR "migration"'],
  ])('%s → %s', (input, expected) => {
    expect(toMatchQuery(input)).toBe(expected)
  })

  it.each(['', '   ', '\n\t ', '***', '"', '""', '" "', '()', '+ - ^ : *', '、。！'])(
    'nothing searchable in %j → null',
    (input) => {
      expect(toMatchQuery(input)).toBeNull()
    },
  )

  it('CJK runs as pairs: verbatim phrase first, then parts between stop-words', () => {
    expect(toMatchQuery('我们上次决定用什么数据库')).toBe(
      '"我们 们上 上次 次决 决定 定用 用什 什么 么数 数据 据库" OR "决定 定用" OR "数据 据库"',
    )
    expect(toMatchQuery('데이터베이스를')).toBe(
      '"데이 이터 터베 베이 이스 스를" OR "데이 이터 터베 베이 이스"',
    )
    expect(toMatchQuery('Agent通信')).toBe('"Agent 通信" OR "Agent" OR "通信"')
    // characters apart in the query are apart in the phrase; a run followed by a word ends there
    expect(toMatchQuery('"数据 迁移" 服务API')).toBe('"数据 据 迁移" OR "服务 务 API" OR "服务" OR "API"')
  })

  it('exposes the terms', () => {
    const terms = parseSearchQuery('FastAPI 做后端 deploy* the')
    expect(terms.map((t) => [t.text, t.kind, t.cjk, t.primary])).toEqual([
      ['FastAPI', 'word', false, true],
      ['做后端', 'cjk', true, true],
      ['deploy', 'prefix', false, true],
      ['deplo', 'prefix', false, false],
    ])
    // data of every engine: no engine's query syntax (SQLite's FTS5 text is built in dialects/sqlite)
    for (const term of terms) expect(Object.keys(term).sort()).toEqual(TERM_FIELDS)
    expect(toMatchQuery('FastAPI 做后端 deploy*', { mode: 'all' })).toBe(
      '"FastAPI" AND "做后 后端" AND "deploy" *',
    )
  })

  it('caps the number of terms and the input length', () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')
    expect(parseSearchQuery(words)).toHaveLength(MAX_QUERY_TERMS)
    expect(toMatchQuery(words)?.split(' OR ')).toHaveLength(MAX_QUERY_TERMS)
    expect(parseSearchQuery(words, { maxTerms: 5 })).toHaveLength(5)
    const long = `${'x'.repeat(5000)} tail`
    expect(toMatchQuery(long)).not.toContain('tail')
  })
})

describe('against a real FTS5 table', () => {
  it('finds rows for the awkward inputs of the issue', () => {
    expect(search('C++')).toContain(1)
    expect(search('"unterminated')).toEqual([2])
    expect(search('(problem')).toEqual([2])
    expect(search('hello AND')).toEqual([3])
    expect(search('***')).toEqual([])
    expect(search('{test}')).toEqual([3])
    expect(search('OR hello')).toEqual([3])
    expect(sorted(search('a AND OR b'))).toEqual([])
    expect(search('')).toEqual([])
    expect(search('   ')).toEqual([])
    expect(search('NOT')).toEqual([24])
    expect(search('AND OR NOT')[0]).toBe(24)
    expect(search('NEAR(quick fox)')).toEqual([25])
    expect(search('^quick')).toEqual([25])
    expect(search('body:quick')).toEqual([])
    expect(search('col:term')).toEqual([11])
  })

  it('identifiers match as phrases', () => {
    expect(search('chat-send')).toEqual([4])
    expect(search('P2.2')).toEqual([5])
    expect(search('my-app.config.ts')).toEqual([6])
    expect(search('sp_new1')).toEqual([7])
    expect(search('send-chat')).toEqual([])
  })

  it('prefix search and stemming', () => {
    expect(sorted(search('deploy*'))).toEqual([8, 9, 10])
    expect(sorted(search('deployed'))).toEqual([8, 10])
    expect(sorted(search('deploying'))).toEqual([8, 10])
    expect(sorted(search('migrat*'))).toEqual([12, 14])
    expect(sorted(search('datab*'))).toEqual([12, 13])
  })

  it('a balanced quoted phrase stays one phrase', () => {
    expect(search('"database migration"')).toEqual([12])
    expect(search('"migration database"')).toEqual([])
    expect(sorted(search('"quick brown" deployment'))).toEqual([9, 25])
  })

  it('natural-language questions: partial matches found, more matching words ranked first', () => {
    const hits = search('what did we decide about the database migration?')
    expect(hits[0]).toBe(12)
    expect(sorted(hits)).toEqual([12, 13, 14])
    // stop-words alone still search
    expect(search('what did you have')).toContain(15)
  })

  it('CJK 1-, 2- and 3-character queries, in mixed-script text', () => {
    expect(sorted(search('后'))).toEqual([16, 19, 20])
    expect(sorted(search('后端'))).toEqual([16, 20])
    expect(search('做后端')).toEqual([16])
    expect(search('FastAPI 做后端')[0]).toBe(16)
    expect(search('通信')).toEqual([17])
    expect(search('Agent通信')).toEqual([17])
    expect(search('agent')).toEqual([17])
    expect(search('完成')).toEqual(expect.arrayContaining([17, 18]))
    expect(search('100%完成')[0]).toBe(18)
    expect(search('데이터')).toEqual([21])
    expect(search('데이터베이스를')).toEqual([21])
    expect(search('데이터베이스가')).toEqual([21])
    expect(search('カタカナ')).toEqual([22])
    expect(search('テスト')).toEqual([22])
    expect(search('データベース')).toEqual([22])
    expect(search('東京')).toEqual([26])
    expect(search('京')).toEqual([26])
    expect(search('端后')).toEqual([])
  })

  it('CJK natural-language questions', () => {
    expect(search('我们上次决定用什么数据库？')).toContain(23)
    expect(search('データベースの移行について')[0]).toBe(22)
    expect(search('데이터베이스를 마이그레이션했어요?')[0]).toBe(21)
    // the particle alone is a stop-word, but alone it is still searched
    expect(search('的')).toEqual([20])
  })
})

describe('robustness (fast-check)', () => {
  const assertValid = (s: string) => {
    for (const mode of ['any', 'all'] as const) {
      const q = toMatchQuery(s, { mode })
      if (q === null) continue
      expect(() => stmt.all(q)).not.toThrow()
    }
  }
  const operatorAlphabet = fc
    .array(
      fc.constantFrom(
        '"',
        '*',
        '+',
        '{',
        '}',
        '(',
        ')',
        '^',
        ':',
        '-',
        '.',
        ' ',
        'AND',
        'OR',
        'NOT',
        'NEAR',
        'a',
        'b',
        '后',
        '端',
        'col',
        '_',
        ',',
        '\u200b',
        '\0',
      ),
      { maxLength: 40 },
    )
    .map((a) => a.join(''))
  const anyCodeUnit = fc.string({
    unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    maxLength: 400,
  })

  it('never throws and never makes FTS5 raise a syntax error: full Unicode', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (s) => assertValid(s)),
      { numRuns: 1000 },
    )
  })
  it('... operator alphabet', () => {
    fc.assert(
      fc.property(operatorAlphabet, (s) => assertValid(s)),
      { numRuns: 2000 },
    )
  })
  it('... any UTF-16 code units (lone surrogates)', () => {
    fc.assert(
      fc.property(anyCodeUnit, (s) => assertValid(s)),
      { numRuns: 1000 },
    )
  })
  it('... non-string input', () => {
    expect(toMatchQuery(undefined as unknown as string)).toBeNull()
    expect(toMatchQuery(42 as unknown as string)).toBeNull()
  })

  it('sanitises 100,000 quotes + 100,000 "a." + 100,000 "*" in well under a second', () => {
    const inputs = ['"'.repeat(100_000), 'a.'.repeat(100_000), '*'.repeat(100_000)]
    inputs.push(inputs.join(''), `${'a.'.repeat(100_000)}${'"'.repeat(100_000)}${'*'.repeat(100_000)}`)
    inputs.push('后'.repeat(300_000), 'x '.repeat(150_000), '的'.repeat(300_000), '(("a" AND '.repeat(30_000))
    for (const s of inputs) {
      const q = toMatchQuery(s)
      if (q !== null) {
        expect(q.length).toBeLessThan(10_000)
        expect(() => stmt.all(q)).not.toThrow()
      }
    }
    // Linear in the input: 8× the text costs about 8× the work (quadratic work would be 64×), counted, not
    // timed; the huge inputs above guard against backtracking inside one regex match, which is not counted.
    const pieces = ['"', 'a.', '*', '后', 'x ', '的', '(("a" AND ']
    const growth = workGrowth((size) => {
      for (const piece of pieces) toMatchQuery(piece.repeat(size))
    }, 1_000)
    console.log(`adversarial inputs, 8× the size: ${growth.toFixed(1)}× the work`)
    expect(growth).toBeLessThan(12)
  })
})
