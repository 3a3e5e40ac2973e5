import { describe, expect, it } from 'vitest'
import { buildFallbackSummary } from '../src/fallback.ts'
import { REDACTED } from '../src/redact.ts'
import {
  buildSummaryRequest,
  detectLanguage,
  isSummaryMessage,
  SUMMARY_MARKER,
  SUMMARY_SECTIONS,
  summaryBody,
  summaryMessage,
} from '../src/summary.ts'
import { bpeTokenCounter } from '../src/tokens.ts'
import { assistant, call, callsTo, result, user } from './helpers.ts'

const turns = [
  user('Deploy with OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx please'),
  callsTo(call('1', 'run', { command: 'deploy --token=ghp_0123456789abcdefghijABCDEFGHIJ012345' })),
  result('1', `${'progress\n'.repeat(400)}Error: deploy failed at src/deploy/run.ts:12`),
  assistant('The deploy failed; see src/deploy/run.ts.'),
]

describe('summary messages', () => {
  it('are marked as reference-only and give their body back', () => {
    const message = summaryMessage('## Goal\nShip it', 'user')
    expect(message.role).toBe('user')
    expect(String(message.content).startsWith(SUMMARY_MARKER)).toBe(true)
    expect(String(message.content)).toMatch(/not a new instruction/)
    expect(isSummaryMessage(message)).toBe(true)
    expect(isSummaryMessage(user('## Goal'))).toBe(false)
    expect(summaryBody(message)).toBe('## Goal\nShip it')
  })
})

describe('buildSummaryRequest', () => {
  it('asks for the structured template within the token budget', () => {
    const request = buildSummaryRequest(turns, null, 1_500)
    for (const section of SUMMARY_SECTIONS) expect(request.system).toContain(`## ${section}`)
    expect(request.system).toContain('1500 tokens')
    expect(request.maxTokens).toBe(1_500)
    expect(request.previousSummary).toBeNull()
    expect(request.prompt).not.toContain('<previous-summary>')
  })

  it('redacts secrets everywhere the summariser can read', () => {
    const request = buildSummaryRequest(turns, 'old key sk-zyxwvutsrqponmlkjihgfedc', 1_500)
    const everything = JSON.stringify(request)
    expect(everything).not.toMatch(/sk-abc|sk-zyx|ghp_0123/)
    expect(request.prompt).toContain(REDACTED)
  })

  it('clips long tool outputs but keeps their end, where errors are', () => {
    const request = buildSummaryRequest(turns, null, 1_500)
    expect(request.prompt).toContain('chars omitted')
    expect(request.prompt).toContain('Error: deploy failed at src/deploy/run.ts:12')
    expect(request.prompt).toContain('[tool result of run(deploy --token=[REDACTED])]')
    expect(request.prompt.length).toBeLessThan(4_000)
  })

  it('asks to update the previous summary rather than start over', () => {
    const request = buildSummaryRequest(turns, '## Goal\nShip v2', 800)
    expect(request.system).toMatch(/updated summary/)
    expect(request.system).toMatch(/do not summarise the summary/)
    expect(request.prompt).toMatch(/^<previous-summary>\n## Goal\nShip v2\n<\/previous-summary>/)
    expect(request.previousSummary).toBe('## Goal\nShip v2')
  })

  it('tells the summariser the conversation’s language', () => {
    const chinese = buildSummaryRequest([user('请帮我修复登录页面的错误'), assistant('好的')], null, 1_500)
    expect(chinese.language).toBe('Chinese')
    expect(chinese.system).toContain('Write in Chinese')
    expect(buildSummaryRequest(turns, null, 1_500).system).toContain(
      'Write in the language the user writes in',
    )
  })
})

describe('detectLanguage', () => {
  it.each([
    ['ログインページのバグを直してください', 'Japanese'],
    ['로그인 페이지의 버그를 고쳐 주세요', 'Korean'],
    ['修复登录页面', 'Chinese'],
    ['Исправь ошибку', 'Russian'],
    ['Fix the login page', null],
    ['', null],
  ])('%s → %s', (text, language) => {
    expect(detectLanguage([user(text)])).toBe(language)
  })
})

describe('buildFallbackSummary', () => {
  const messages = [
    user('first ask'),
    callsTo(call('1', 'read_file', { path: 'src/auth/login.ts' })),
    result('1', 'export function login() {}'),
    callsTo(call('2', 'run_tests', { command: 'pnpm test' })),
    result('2', 'ran 10 tests\nFAILED test/login.test.ts: expected 200, got 401'),
    user('now fix it; the password: hunter22 is for staging'),
    assistant('Looking at package.json next.'),
  ]

  it('lists the latest ask, numbered actions, errors and files, redacted', () => {
    const text = buildFallbackSummary(messages, null, 1_500, bpeTokenCounter)
    expect(text).toContain('Latest user ask:\nnow fix it; the password: [REDACTED] is for staging')
    expect(text).toContain('Actions:\n1. read_file(src/auth/login.ts)\n2. run_tests(pnpm test)')
    expect(text).toContain(
      'Errors seen:\n- run_tests(pnpm test): FAILED test/login.test.ts: expected 200, got 401',
    )
    expect(text).toMatch(/Files mentioned:\n.*src\/auth\/login\.ts/)
    expect(text).toContain('package.json')
    expect(text).not.toContain('hunter22')
  })

  it('is deterministic, carries the previous summary forward and respects the size cap', () => {
    const a = buildFallbackSummary(messages, '## Goal\nfix login', 1_500, bpeTokenCounter)
    expect(buildFallbackSummary(messages, '## Goal\nfix login', 1_500, bpeTokenCounter)).toBe(a)
    expect(a).toContain('Earlier summary:\n## Goal\nfix login')
    const many = Array.from({ length: 300 }, (_, i) =>
      callsTo(call(`c${i}`, 'read_file', { path: `src/f${i}.ts` })),
    )
    const capped = buildFallbackSummary(many, null, 200, bpeTokenCounter)
    expect(bpeTokenCounter.countText(capped)).toBeLessThanOrEqual(200)
  })

  it('caps long lists with a count of the rest', () => {
    const many = Array.from({ length: 50 }, (_, i) => callsTo(call(`c${i}`, 'ls', { path: `d${i}` })))
    const text = buildFallbackSummary(many, null, 5_000, bpeTokenCounter)
    expect(text).toContain('40. ls(d39)\n… and 10 more')
  })
})
