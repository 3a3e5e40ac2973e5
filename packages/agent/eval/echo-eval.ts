/**
 * Does recall come from what was said, or from the agent's own searching? (issue 30)
 *
 * Real agent sessions through `createAgent` (the offline model, its `memory` and `session_search` tools on,
 * a real SQLite file): facts are said in some sessions; later sessions ask about them (the offline model
 * calls `session_search` and answers from what it returns), three rounds, with searches for things never
 * said in between (each leaves a "No past session matches …" result and an "I found nothing …" reply). Then
 * every fact is searched as `engram search` and the tool would search it: the question as asked, and the
 * words the tool was called with. Reported: the rank of the fact's own message (R@1, R@5, MRR), English and
 * Chinese; the same with the agent's retrieval traffic included and questions not ranked below statements
 * (the search before issue 30); and how many answers of the last round quote the fact.
 *
 *   npx tsx --conditions=engram-source packages/agent/eval/echo-eval.ts [--min-r1 0.9]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openStore, type SearchOptions, type Store } from '@engram/core'
import type { RankFeatures } from '../../core/src/search/rank.ts'
import { searchWithRanking } from '../../core/src/store/evaluation.ts'
import {
  createAgent,
  createOfflineModel,
  DEFAULT_COMPACT_TRIGGER_RATIO,
  DEFAULT_MEMORY_CHAR_LIMIT,
  DEFAULT_USER_CHAR_LIMIT,
  MemoryFiles,
} from '../src/index.ts'
import { searchQuery } from '../src/providers/offline-text.ts'

interface Fact {
  said: string
  asked: string
}

const FACTS: Record<'en' | 'zh', { facts: Fact[]; never: string[]; talk: string[] }> = {
  en: {
    facts: [
      {
        said: 'We moved the release window to Thursday afternoon.',
        asked: 'What did we decide about the release window?',
      },
      {
        said: 'The staging database now listens on port 5433.',
        asked: 'What did I say about the staging database port?',
      },
      {
        said: 'Our team picked Grafana for the dashboards.',
        asked: 'Which tool did we pick for the dashboards?',
      },
      {
        said: 'The invoice service is written in Go.',
        asked: 'What did I tell you about the invoice service language?',
      },
      {
        said: 'Maria owns the billing migration from now on.',
        asked: 'Who did we decide owns the billing migration?',
      },
      {
        said: 'The office wifi password rotates every Monday.',
        asked: 'What did I mention about the office wifi password?',
      },
      {
        said: 'We chose Postgres 16 for the analytics cluster.',
        asked: 'Remind me which Postgres version we chose for the analytics cluster?',
      },
      {
        said: 'The quarterly offsite will be in Lisbon this year.',
        asked: 'Where did we decide to hold the quarterly offsite?',
      },
      {
        said: 'The mobile app release is blocked by the login bug.',
        asked: 'What did I say about the mobile app release?',
      },
      {
        said: 'Backups of the ledger run at 2am every night.',
        asked: 'When did we decide the ledger backups run?',
      },
    ],
    never: [
      'What did I say about the release party?',
      'What did we decide about the database vendor?',
      'Remind me about the dashboard colours?',
      'What did I mention about the office plants?',
      'Did we decide anything about the app icon?',
    ],
    talk: ['Good morning, busy day ahead.', 'The coffee machine is broken again.', 'Thanks, that helps.'],
  },
  zh: {
    facts: [
      { said: '昨天我们决定把发布窗口改到周四下午。', asked: '上次说的发布窗口是什么时候？' },
      { said: '测试数据库现在监听 5433 端口。', asked: '之前说过测试数据库用哪个端口？' },
      { said: '我们团队选了 Grafana 做监控面板。', asked: '上次我们选了什么做监控面板？' },
      { said: '发票服务是用 Go 写的。', asked: '之前提过发票服务用什么语言写的？' },
      { said: '计费迁移以后由玛丽亚负责。', asked: '还记得计费迁移是谁负责吗？' },
      { said: '办公室无线密码每周一更换。', asked: '上次说的办公室无线密码多久换一次？' },
      { said: '分析集群用的是 Postgres 16。', asked: '之前聊过分析集群用哪个版本？' },
      { said: '今年的季度团建定在里斯本。', asked: '上次说的季度团建在哪里？' },
      { said: '移动端发布被登录问题卡住了。', asked: '之前说过移动端发布为什么卡住？' },
      { said: '账本备份每天凌晨两点运行。', asked: '还记得账本备份几点运行吗？' },
    ],
    never: [
      '上次说的发布会在哪里？',
      '之前说过数据库供应商是谁？',
      '上次说的监控告警阈值是多少？',
      '还记得办公室绿植谁管吗？',
      '之前聊过登录页面的颜色吗？',
    ],
    talk: ['早上好，今天很忙。', '咖啡机又坏了。', '谢谢，这很有帮助。'],
  },
}

const ROUNDS = 3
const USER = 'eval-user'

interface Built {
  store: Store
  /** Per language, per fact: the id of the message that said it, and the words the tool searched. */
  facts: Record<'en' | 'zh', { id: number; fact: Fact; words: string }[]>
  /** Per language: the answers of the last round that quote their fact. */
  quoted: Record<'en' | 'zh', number>
  dir: string
}

async function build(): Promise<Built> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-echo-eval-'))
  const store = await openStore({ url: join(dir, 'engram.db') })
  const memory = new MemoryFiles({
    memoryPath: join(dir, 'MEMORY.md'),
    userPath: join(dir, 'USER.md'),
    memoryCharLimit: DEFAULT_MEMORY_CHAR_LIMIT,
    userCharLimit: DEFAULT_USER_CHAR_LIMIT,
    compactTriggerRatio: DEFAULT_COMPACT_TRIGGER_RATIO,
  })
  const agent = createAgent({ store, provider: createOfflineModel(), memory, source: 'cli', userId: USER })
  const facts: Built['facts'] = { en: [], zh: [] }
  const quoted: Built['quoted'] = { en: 0, zh: 0 }
  // the facts, five to a session, between small talk
  for (const lang of ['en', 'zh'] as const) {
    const { facts: list, talk } = FACTS[lang]
    for (let i = 0; i < list.length; i++) {
      if (i % 5 === 0) await agent.newSession()
      await agent.run(talk[i % talk.length] as string)
      const fact = list[i] as Fact
      await agent.run(fact.said)
      const stored = await store.getStoredMessages(agent.sessionId as string)
      const said = stored.findLast((m) => m.role === 'user' && m.content === fact.said)
      facts[lang].push({ id: said?.id as number, fact, words: searchQuery(fact.asked) })
    }
  }
  // rounds of asking, each in new sessions, with failed searches in between
  for (let round = 0; round < ROUNDS; round++) {
    for (const lang of ['en', 'zh'] as const) {
      const { facts: list, never } = FACTS[lang]
      await agent.newSession()
      for (const [i, fact] of list.entries()) {
        const answer = await agent.run(fact.asked)
        if (round === ROUNDS - 1 && answer.includes(fact.said)) quoted[lang]++
        await agent.run(never[i % never.length] as string)
      }
    }
  }
  return { store, facts, quoted, dir }
}

interface Figures {
  r1: number
  r5: number
  mrr: number
}

async function measure(
  built: Built,
  lang: 'en' | 'zh',
  options: SearchOptions,
  ranking: Partial<RankFeatures> = {},
): Promise<Figures> {
  const ranks: number[] = []
  for (const { id, fact, words } of built.facts[lang]) {
    for (const query of [fact.asked, words]) {
      const hits = await searchWithRanking(
        built.store,
        query,
        { userId: USER, limit: 20, includeEpisodes: false, ...options },
        ranking,
      )
      const at = hits.findIndex((hit) => hit.kind === 'message' && hit.messageId === id)
      ranks.push(at < 0 ? Number.POSITIVE_INFINITY : at + 1)
    }
  }
  const share = (ok: (rank: number) => boolean) => ranks.filter(ok).length / ranks.length
  return {
    r1: share((r) => r === 1),
    r5: share((r) => r <= 5),
    mrr: ranks.reduce((sum, r) => sum + (Number.isFinite(r) ? 1 / r : 0), 0) / ranks.length,
  }
}

const fmt = (f: Figures) => `R@1 ${f.r1.toFixed(2)}  R@5 ${f.r5.toFixed(2)}  MRR ${f.mrr.toFixed(3)}`

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'min-r1': { type: 'string' } } })
  const minR1 = values['min-r1'] === undefined ? undefined : Number(values['min-r1'])
  const built = await build()
  let failed = false
  try {
    console.log(
      `Agent sessions (createAgent, offline model, tools on): ${FACTS.en.facts.length} English and ${FACTS.zh.facts.length} Chinese facts, ${ROUNDS} rounds of questions with failed searches between; each fact searched as asked and as the tool's words (limit 20, user-scoped).`,
    )
    for (const lang of ['en', 'zh'] as const) {
      const now = await measure(built, lang, {})
      const before = await measure(built, lang, { includeRetrieval: true }, { statements: false })
      console.log(`${lang}: default search        ${fmt(now)}`)
      console.log(`${lang}: traffic in, no order  ${fmt(before)}`)
      console.log(
        `${lang}: last round's answers quoting the fact: ${built.quoted[lang]}/${FACTS[lang].facts.length}`,
      )
      if (minR1 !== undefined && now.r1 < minR1) {
        console.error(`${lang}: R@1 ${now.r1.toFixed(2)} is below ${minR1}`)
        failed = true
      }
    }
  } finally {
    await built.store.close()
    rmSync(built.dir, { recursive: true, force: true })
  }
  if (failed) process.exitCode = 1
}

await main()
