import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Store } from '../src/index.ts'
import {
  isQuestion,
  isTimeQuestion,
  stripQuestionWords,
  withHanBigrams,
} from '../src/search/question-words.ts'
import { namesParticipant } from '../src/search/rank.ts'
import { hasTimeExpression, parseQueryDates } from '../src/search/time-words.ts'
import { workGrowth } from '../src/testing/work.ts'
import { driversUnderTest, tempDbPath, tempDir, withStore } from './helpers.ts'

const DAY = 86_400_000
const NOW = Date.UTC(2023, 6, 15, 12) // Saturday 15 July 2023, noon UTC
const day = (y: number, m: number, d: number) => ({
  from: Date.UTC(y, m - 1, d),
  to: Date.UTC(y, m - 1, d) + DAY,
})
const month = (y: number, m: number) => ({ from: Date.UTC(y, m - 1, 1), to: Date.UTC(y, m, 1) })

describe('dates in a query', () => {
  it.each([
    ['What did Tom cook on 8 May 2023?', day(2023, 5, 8)],
    ['what did Tom cook on May 8, 2023', day(2023, 5, 8)],
    ['notes from 2023-05-08', day(2023, 5, 8)],
    ['what happened on 8 May', day(2023, 5, 8)],
    ['what happened on 20 July', day(2022, 7, 20)],
    ['小林2023年5月8日去的演唱会怎么样？', day(2023, 5, 8)],
    ['5月8号小林做了什么？', day(2023, 5, 8)],
    ['what did we decide yesterday', day(2023, 7, 14)],
    ['昨天说了什么', day(2023, 7, 14)],
    // a month named alone is its latest occurrence begun by now: June 2023, but August 2022
    ['where did we go camping in June?', month(2023, 6)],
    ['what did we decide during aug', month(2022, 8)],
    ['我们12月份讨论了什么', month(2022, 12)],
    ['6月的发布窗口', month(2023, 6)],
  ])('%s', (query, range) => {
    expect(parseQueryDates(query, NOW).ranges).toEqual([range])
  })

  it('resolves relative weeks, months and years against now, and removes them from the text', () => {
    const week = parseQueryDates('what did we plan last week?', NOW)
    expect(week.ranges).toEqual([{ from: Date.UTC(2023, 6, 3), to: Date.UTC(2023, 6, 10) }])
    expect(week.text).not.toMatch(/week/)
    expect(parseQueryDates('上个月的部署', NOW).ranges).toEqual([month(2023, 6)])
    expect(parseQueryDates('trips in May 2023', NOW).ranges).toEqual([month(2023, 5)])
    expect(parseQueryDates('去年的计划', NOW).ranges).toEqual([
      { from: Date.UTC(2022, 0, 1), to: Date.UTC(2023, 0, 1) },
    ])
    const ago = parseQueryDates('the bug from 3 days ago', NOW).ranges[0]
    expect(ago?.from).toBe(Date.UTC(2023, 6, 12))
  })

  it('leaves a query without dates as it is, and an impossible date unresolved', () => {
    expect(parseQueryDates('may I ask about the cache', NOW)).toEqual({
      text: 'may I ask about the cache',
      ranges: [],
    })
    expect(parseQueryDates('on 2023-13-40', NOW).ranges).toEqual([])
    // months as verbs or counts, and month numbers that are not months
    for (const query of ['we march on', 'it may rain', '过去6个月的账单', '13月的计划', '0月'])
      expect(parseQueryDates(query, NOW).ranges).toEqual([])
  })

  it('never throws and stays linear on any text', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (text, now) => {
          const { ranges } = parseQueryDates(text, now)
          for (const r of ranges) expect(r.to).toBeGreaterThan(r.from)
          hasTimeExpression(text)
          isQuestion(text)
        },
      ),
    )
    // 8× the text costs about 8× the work (quadratic work would be 64×), counted, not timed.
    const work = (size: number) => {
      const long = `${'8 May '.repeat(size)}${' '.repeat(size * 2.5)}x`
      parseQueryDates(long, NOW)
      hasTimeExpression(long)
      isQuestion(long)
      stripQuestionWords(long)
    }
    expect(workGrowth(work, 300)).toBeLessThan(12)
    // Backtracking inside one regex match is not counted: 20,000 repeats finish (the timeout is the guard).
    work(20_000)
  })
})

describe('question words and time expressions', () => {
  it('drops interrogatives but never the whole query', () => {
    expect(stripQuestionWords('How long has Priya been climbing?')).not.toMatch(/long/)
    expect(stripQuestionWords('小林什么时候搬到杭州的？')).toBe('小林 搬到杭州的？')
    expect(stripQuestionWords('多久')).toBe('多久')
  })

  it('adds the bigrams of three-character Han words', () => {
    expect(withHanBigrams('晚饭吃', ['晚饭吃'])).toBe('晚饭吃 晚饭 饭吃')
    expect(withHanBigrams('cache', ['cache'])).toBe('cache')
  })

  it('tells questions from keywords and time questions from others', () => {
    expect(isQuestion('When did Priya move to Lisbon?')).toBe(true)
    expect(isQuestion('what did we decide about the cache')).toBe(true)
    expect(isQuestion('上次部署出了什么问题')).toBe(true)
    expect(isQuestion('database migration')).toBe(false)
    expect(isQuestion('数据库')).toBe(false)
    // one word is a keyword, even when it holds a question word or opens like a question
    for (const word of ['几何', '多少', '哪里', 'should', 'Will']) expect(isQuestion(word), word).toBe(false)
    expect(isQuestion('几何?')).toBe(true)
    expect(isTimeQuestion('How long has Tom played chess?')).toBe(true)
    expect(isTimeQuestion('小林什么时候搬家的？')).toBe(true)
    expect(isTimeQuestion('What book is Tom reading?')).toBe(false)
    expect(hasTimeExpression('I started last Monday')).toBe(true)
    expect(hasTimeExpression('我上周开始上班')).toBe(true)
    expect(hasTimeExpression('Great news, they said yes')).toBe(false)
  })

  it('finds participants named in a query', () => {
    expect(namesParticipant('What book is Priya reading?', 'Priya')).toBe(true)
    expect(namesParticipant('What book is Priyanka reading?', 'Priya')).toBe(false)
    expect(namesParticipant('小林在读什么书？', '小林')).toBe(true)
    expect(namesParticipant('anything', '')).toBe(false)
  })
})

async function chat(store: Store, userId: string, start: number, lines: [string, string][]) {
  const session = await store.createSession({ source: 'chat', userId })
  const stored = await store.appendMessages(
    session.id,
    lines.map(([name, content], i) => ({
      role: name === 'Priya' ? ('user' as const) : ('assistant' as const),
      name,
      content,
      timestamp: start + i * 60_000,
    })),
  )
  return stored.map((m) => m.id)
}

for (const driver of driversUnderTest()) {
  describe(`conversation-aware search on ${driver}`, () => {
    const dir = tempDir()
    const open = <T>(use: (store: Store) => Promise<T>) => withStore({ url: tempDbPath(dir), driver }, use)

    it('finds the reply to the turn holding the question’s words, under the user scope', () =>
      open(async (store) => {
        const [, ask, reply] = await chat(store, 'u1', Date.UTC(2023, 4, 2), [
          ['Priya', 'Morning!'],
          ['Tom', 'Did you ever hear back about the interview at Northwind?'],
          ['Priya', 'Yes! They made me an offer yesterday.'],
          ['Tom', 'Amazing.'],
        ])
        await chat(store, 'u2', Date.UTC(2023, 4, 2), [['Tom', 'The interview at Northwind went badly.']])
        const hits = await store.search('What happened with the interview at Northwind?', {
          userId: 'u1',
          now: NOW,
        })
        expect(hits.length).toBeGreaterThan(0)
        expect(hits.slice(0, 2).map((h) => h.messageId)).toEqual(expect.arrayContaining([ask, reply]))
        expect(new Set(hits.map((h) => h.sessionId)).size).toBe(1)
        // a keyword search returns matching messages only
        const keywords = await store.search('interview Northwind', { userId: 'u1' })
        expect(keywords.map((h) => h.messageId)).toEqual([ask])
        // the role filter applies to the neighbours too
        const users = await store.search('What happened with the interview at Northwind?', {
          userId: 'u1',
          role: 'assistant',
        })
        expect(users.length).toBeGreaterThan(0)
        expect(users.every((h) => h.role === 'assistant')).toBe(true)
      }))

    it('reads a full-width question mark as a question: the reply after it ranks with it', () =>
      open(async (store) => {
        const ids = await chat(store, 'u1', Date.UTC(2023, 4, 2), [
          ['小林', '施工队说的工期永远要翻倍。'],
          ['阿杰', '最近工作压力很大。'],
          ['阿杰', '乔迁礼物最后选好了吗？'],
          ['小林', '我买了一幅她长大的那个海港的装裱画，她感动得都哭了。'],
          ['小林', '哈哈，太典型了。'],
        ])
        const hits = await store.search('小林选好乔迁礼物了吗？', { userId: 'u1' })
        // the question and its answer first: before, only "?" was read, and the turns two away outranked it
        expect(hits.slice(0, 2).map((h) => h.messageId)).toEqual(expect.arrayContaining([ids[2], ids[3]]))
      }))

    it('searches one word as a keyword: no neighbours join its hits', () =>
      open(async (store) => {
        const [match] = await chat(store, 'u1', Date.UTC(2023, 4, 2), [
          ['Tom', '我们学几何'],
          ['Priya', 'unrelated reply'],
        ])
        const hits = await store.search('几何', { userId: 'u1' })
        expect(hits.map((h) => h.messageId)).toEqual([match])
      }))

    it('returns a neighbour with the start of its text as a bounded snippet', () =>
      open(async (store) => {
        const long = `${'x'.repeat(199)}😀${' filler'.repeat(20_000)}`
        const [, reply] = await chat(store, 'u1', Date.UTC(2023, 4, 2), [
          ['Tom', 'Did the landlord fix the heater?'],
          ['Priya', long],
        ])
        const hits = await store.search('Did the landlord fix the heater?', { userId: 'u1' })
        const hit = hits.find((h) => h.messageId === reply)
        expect(hit?.snippet).toBe(`${'x'.repeat(199)}…`)
      }))

    it('prefers the messages of a participant the question names', () =>
      open(async (store) => {
        const [tom, priya] = await chat(store, 'u1', Date.UTC(2023, 4, 2), [
          ['Tom', 'I am reading Piranesi at the moment.'],
          ['Priya', 'I am reading Circe at the moment.'],
        ])
        for (const [name, id] of [
          ['Priya', priya],
          ['Tom', tom],
        ] as const) {
          const hits = await store.search(`What book is ${name} reading at the moment?`, { userId: 'u1' })
          expect(hits[0]?.messageId).toBe(id)
        }
      }))

    it('prefers messages of the day a question names, and time expressions for when-questions', () =>
      open(async (store) => {
        const [may8] = await chat(store, 'u1', Date.UTC(2023, 4, 8, 18), [
          ['Tom', 'The concert tonight was incredible.'],
        ])
        await chat(store, 'u1', Date.UTC(2023, 4, 20, 18), [
          ['Tom', 'The concert was fine, nothing special, the concert hall was cold.'],
        ])
        const hits = await store.search('What did Tom say about the concert on 8 May?', {
          userId: 'u1',
          now: NOW,
        })
        expect(hits[0]?.messageId).toBe(may8)
        expect(hits[0]?.timestamp).toBe(Date.UTC(2023, 4, 8, 18))
        const [moved] = await chat(store, 'u1', Date.UTC(2023, 5, 1), [
          ['Priya', 'I moved into the new flat in Lisbon two weeks ago.'],
          ['Priya', 'Moving flats in Lisbon is the worst, the new flat is tiny.'],
        ])
        const when = await store.search('When did Priya move into the new flat in Lisbon?', { userId: 'u1' })
        expect(when[0]?.messageId).toBe(moved)
      }))

    it('answers a question naming only a day with that day’s messages, resolved against now', () =>
      open(async (store) => {
        const ids = await chat(store, 'u1', NOW - DAY, [
          ['Tom', 'Lunch was great.'],
          ['Priya', 'Agreed.'],
        ])
        await chat(store, 'u1', NOW - 5 * DAY, [['Tom', 'Old news.']])
        const hits = await store.search('what happened yesterday?', { userId: 'u1', now: NOW })
        expect(hits.map((h) => h.messageId).sort()).toEqual(ids)
        expect(await store.search('what happened yesterday?', { userId: 'u1', now: NOW + 30 * DAY })).toEqual(
          [],
        )
      }))
  })
}
