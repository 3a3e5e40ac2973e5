import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toMatchQuery } from '../src/dialects/sqlite/match.ts'
import { charClass, hasCjk, INDEX_MARK, stripIndexMarks, toIndexText } from '../src/search/cjk.ts'
import { workGrowth } from '../src/testing/work.ts'

const TOKENIZE = "tokenize='porter unicode61 remove_diacritics 2'"
const M = INDEX_MARK

function ftsDb() {
  const db = new Database(':memory:')
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(body, ${TOKENIZE})`)
  return db
}

describe('toIndexText', () => {
  it('returns null when no mark is needed', () => {
    expect(toIndexText('')).toBeNull()
    expect(toIndexText('plain English text, deploy it!')).toBeNull()
    expect(toIndexText('emoji 👍 only and ünïcödé')).toBeNull()
    expect(toIndexText('后')).toBeNull()
    expect(toIndexText('后 端，完。')).toBeNull()
    expect(toIndexText(`后${M}端`)).toBeNull()
  })

  it('makes every CJK run its overlapping pairs and its last character, with the fewest marks', () => {
    expect(toIndexText('做后端')).toBe(`做后${M}后端${M}端`)
    expect(toIndexText('FastAPI 做后端')).toBe(`FastAPI 做后${M}后端${M}端`)
    expect(toIndexText('Agent通信')).toBe(`Agent${M}通信${M}信`)
    expect(toIndexText('100%完成')).toBe(`100%完成${M}成`)
    expect(toIndexText('后端，完成。')).toBe(`后端${M}端，完成${M}成。`)
    expect(toIndexText('哈哈哈')).toBe(`哈哈${M}哈哈${M}哈`)
    expect(toIndexText('데이터')).toBe(['데이', '이터', '터'].join(M))
    expect(toIndexText('カタカナー')).toBe(['カタ', 'タカ', 'カナ', 'ナー', 'ー'].join(M))
    expect(toIndexText('ｶﾀｰ')).toBe(['ｶﾀ', 'ﾀｰ', 'ｰ'].join(M))
    expect(toIndexText('𠮷野家')).toBe(`𠮷野${M}野家${M}家`)
    expect(toIndexText('漢字かな')).toBe(['漢字', '字か', 'かな', 'な'].join(M))
    // an emoji newer than SQLite's Unicode tables is a token character for unicode61
    expect(toIndexText('完成🤖')).toBe(`完成${M}成${M}🤖`)
    // U+1F44D predates them: a separator, no mark
    expect(toIndexText('完成👍')).toBe(`完成${M}成👍`)
  })

  it('never throws, also on lone surrogates', () => {
    for (const s of ['\ud800', '\udc00后', '后\ud800端', '后\udfff', '\ud83e后']) {
      expect(() => toIndexText(s)).not.toThrow()
    }
    expect(toIndexText('后\ud800端')).toBeNull()
    expect(toIndexText(undefined as unknown as string)).toBeNull()
    const anyUnit = fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      maxLength: 400,
    })
    fc.assert(fc.property(anyUnit, (s) => void toIndexText(s)))
  })

  it('round-trips through stripIndexMarks for any text without U+200B', () => {
    const cjkish = fc.string({
      unit: fc.oneof(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        fc.constantFrom('后', '端', 'カ', 'ー', '데', 'a', '1', ' ', '、', '𠮷', '🤖'),
      ),
      maxLength: 200,
    })
    let split = 0
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), cjkish), (s) => {
        fc.pre(!s.includes(M))
        const indexed = toIndexText(s)
        if (indexed !== null && indexed !== s) split += 1
        expect(stripIndexMarks(indexed ?? s)).toBe(s)
      }),
      { numRuns: 500 },
    )
    // The property is only worth something if marks were inserted and removed: many texts were split.
    expect(split).toBeGreaterThan(100)
  })

  it('hasCjk', () => {
    expect(hasCjk('hello')).toBe(false)
    expect(hasCjk('hello 👍')).toBe(false)
    expect(hasCjk('hello 后')).toBe(true)
    expect(hasCjk('ー')).toBe(true)
    expect(hasCjk('𠮷')).toBe(true)
    expect(hasCjk('한')).toBe(true)
  })

  it('stripIndexMarks reads an index text, or a cut piece of one, as its text', () => {
    const text = '我们用FastAPI做后端开发，哈哈哈。'
    const indexed = toIndexText(text) as string
    expect(stripIndexMarks(indexed)).toBe(text)
    // an excerpt is the first characters of a row's index text: cut anywhere, it reads as a start of the text
    for (let end = 0; end <= indexed.length; end++) {
      expect(text.startsWith(stripIndexMarks(indexed.slice(0, end))), indexed.slice(0, end)).toBe(true)
    }
    expect(stripIndexMarks('no marks here')).toBe('no marks here')
  })

  it('is linear in the text, mixed CJK and ASCII alike', () => {
    const base =
      '我们决定用 PostgreSQL 做后端数据库，migration 脚本在 db/migrate.ts 里。デプロイは明日の朝に行います。' +
      '배포는 내일 아침에 합니다. The deploy pipeline runs on GitHub Actions and pushes the image to the registry. '
    const ascii = 'The deploy pipeline runs on GitHub. '
    // 8× the text costs about 8× the work (quadratic work would be 64×), counted, not timed.
    const mixed = workGrowth((size) => toIndexText(base.repeat(size)), 200)
    const plain = workGrowth((size) => toIndexText(ascii.repeat(size)), 2_000)
    console.log(`toIndexText, 8× the text: mixed ${mixed.toFixed(1)}×, plain ${plain.toFixed(1)}× the work`)
    expect(mixed).toBeLessThan(12)
    expect(plain).toBeLessThan(12)
    // Backtracking inside one regex match is not counted: megabytes of both finish (the timeout is the guard).
    expect(toIndexText(base.repeat(8_000))?.length).toBeGreaterThan(base.length * 8_000)
    expect(toIndexText(ascii.repeat(30_000))).toBeNull()
  })
})

describe('the separator table matches SQLite unicode61', () => {
  it('classifies every code point as the real tokenizer does', () => {
    const db = ftsDb()
    db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    const cps: number[] = []
    for (let cp = 1; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) cps.push(cp)
    const B = 8192
    const ins = db.prepare('INSERT INTO t(rowid, body) VALUES (?, ?)')
    db.transaction(() => {
      for (let i = 0; i < cps.length; i += B) {
        const doc = cps.slice(i, i + B).map((cp) => `q${String.fromCodePoint(cp)}q`)
        ins.run(i / B + 1, doc.join(' '))
      }
    })()
    const token = new Uint8Array(0x110000)
    const rows = db.prepare('SELECT doc, term FROM v ORDER BY doc, offset').raw().iterate() as Iterable<
      [number, string]
    >
    let doc = 0
    let k = 0
    let pendingQ = false
    for (const [d, term] of rows) {
      if (d !== doc) {
        doc = d
        k = (d - 1) * B
        pendingQ = false
      }
      // a separator yields "q", "q"; a token character one token "q?q"
      if (term === 'q') {
        if (pendingQ) {
          k++
          pendingQ = false
        } else pendingQ = true
      } else {
        token[cps[k] as number] = 1
        k++
      }
    }
    const wrong: string[] = []
    for (const cp of cps) {
      if ((charClass(cp) !== 0) !== (token[cp] === 1)) wrong.push(cp.toString(16))
    }
    expect(wrong.slice(0, 20)).toEqual([])
  })
})

describe('index text in a real FTS5 table', () => {
  let db: Database.Database
  const rows: Record<number, string> = {
    1: '我用FastAPI做后端',
    2: '后来我们去吃饭了',
    3: '前端和后端分离',
    4: '데이터베이스를 설정했습니다',
    5: 'カタカナのテスト',
    6: 'we are deploying the service now',
    7: 'Agent通信协议',
    8: '100%完成',
  }
  const find = (q: string) =>
    (db.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid').all(q) as { rowid: number }[]).map(
      (r) => r.rowid,
    )
  beforeAll(() => {
    db = ftsDb()
    const ins = db.prepare('INSERT INTO t(rowid, body) VALUES (?, ?)')
    for (const [id, text] of Object.entries(rows)) ins.run(Number(id), toIndexText(text) ?? text)
  })
  afterAll(() => db.close())

  it('a phrase of pairs matches exactly the verbatim substring; one character matches as a prefix', () => {
    expect(find('"后端"')).toEqual([1, 3])
    expect(find('"后" *')).toEqual([1, 2, 3])
    expect(find('"做后 后端"')).toEqual([1])
    expect(find('"端后"')).toEqual([])
    expect(find('"데이 이터"')).toEqual([4])
    expect(find('"カタ タカ カナ"')).toEqual([5])
    expect(find('"通信"')).toEqual([7])
    expect(find('"agent 通信"')).toEqual([7])
    expect(find('agent')).toEqual([7])
    expect(find('"完成"')).toEqual([8])
    expect(find('100')).toEqual([8])
    expect(find('fastapi')).toEqual([1])
    // the query side builds the same (index-phrase.ts)
    for (const [query, ids] of [
      ['后端', [1, 3]],
      ['后', [1, 2, 3]],
      ['端', [1, 3]],
      ['做后端', [1]],
      ['Agent通信', [7]],
      ['FastAPI做', [1]],
      ['用FastAPI', [1]],
    ] as const) {
      expect(find(toMatchQuery(query, { mode: 'all' }) as string), query).toEqual(ids)
    }
  })

  it('porter still stems English', () => {
    expect(find('deployed')).toEqual([6])
    expect(find('deploy')).toEqual([6])
  })

  it('a CJK run is its pairs and its last character, as many tokens as characters', () => {
    db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS vr USING fts5vocab(t, 'instance')")
    const terms = (
      db.prepare('SELECT term FROM vr WHERE doc = 1 ORDER BY offset').all() as { term: string }[]
    ).map((r) => r.term)
    expect(terms).toEqual(['我用', '用', 'fastapi', '做后', '后端', '端'])
  })

  it('property: every substring of a random CJK text finds its row (100% verbatim recall)', () => {
    const pool = [
      ...'的了是在后端数据库迁移部署决定服务器配置测试用户我们你他中文日本語漢字𠮷𪚥',
      ...'あいうえおかきくけこのはがをにでとカタカナーデータベースｶﾀｶﾅｰ',
      ...'데이터베이스를설정했습니다한국어배포',
      ...' 、。，！？',
    ]
    const text = fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 30 }).map((a) => a.join(''))
    const mem = ftsDb()
    const ins = mem.prepare('INSERT INTO t(rowid, body) VALUES (?, ?)')
    const del = mem.prepare('DELETE FROM t')
    const query = mem.prepare('SELECT rowid FROM t WHERE t MATCH ?')
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (s, a, b) => {
        const chars = [...s]
        const start = a % chars.length
        const len = 1 + (b % (chars.length - start))
        const sub = chars.slice(start, start + len).join('')
        const q = toMatchQuery(sub)
        if (q === null) {
          // only separators (spaces may sit between the punctuation, not only around it)
          expect(sub.replace(/[\s、。，！？]/g, '')).toBe('')
          return
        }
        del.run()
        ins.run(1, toIndexText(s) ?? s)
        ins.run(2, toIndexText('无关的文本 unrelated') ?? '')
        const ids = (query.all(q) as { rowid: number }[]).map((r) => r.rowid)
        expect(ids).toContain(1)
      }),
      { numRuns: 1000 },
    )
    mem.close()
  })

  it('property: a CJK word finds a text exactly when the text holds it verbatim', () => {
    // few characters, so that words often occur, and often occur only across a separator or out of order
    const chars = [...'数据迁移库后端的']
    const text = fc
      .array(fc.constantFrom(...chars, ' ', '，', 'a'), { minLength: 1, maxLength: 24 })
      .map((a) => a.join(''))
    const word = fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: 4 }).map((a) => a.join(''))
    const mem = ftsDb()
    const ins = mem.prepare('INSERT INTO t(rowid, body) VALUES (1, ?)')
    const query = mem.prepare('SELECT rowid FROM t WHERE t MATCH ?')
    let found = 0
    fc.assert(
      fc.property(text, word, (s, w) => {
        mem.exec('DELETE FROM t')
        ins.run(toIndexText(s) ?? s)
        // the verbatim term alone (mode all: the primary terms), not its helper parts
        const hit = query.all(toMatchQuery(w, { mode: 'all' }) as string).length > 0
        expect(hit, `${w} in ${s}`).toBe(s.includes(w))
        if (hit) found++
      }),
      { numRuns: 1000 },
    )
    // worth something only if both answers were common
    expect(found).toBeGreaterThan(100)
    expect(found).toBeLessThan(900)
    mem.close()
  })
})
