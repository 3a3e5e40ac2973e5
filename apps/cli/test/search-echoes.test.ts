import { describe, expect, it } from 'vitest'
import { engram, engramJson, type Json, tempDir } from './helpers.ts'

/**
 * Issue 30 as a user met it in `engram chat` (offline model): a fact said once, asked about twice in new
 * sessions. Before, `engram search 发布窗口` ranked the fact 10th of 18, below the agent's session_search calls,
 * their "No past session matches …" results, its "I found nothing …" replies and the questions themselves,
 * and the second answer quoted the first failure.
 */
describe('engram chat: the agent’s own searching never outranks what was said', () => {
  for (const [lang, fact, question, word] of [
    ['Chinese', '昨天我们决定把发布窗口改到周四下午。', '上次说的发布窗口是什么时候？', '发布窗口'],
    [
      'English',
      'We moved the release window to Thursday afternoon.',
      'What did we decide about the release window?',
      'release window',
    ],
  ] as const) {
    it(`ranks the ${lang} fact first and answers from it, however often it was asked`, async () => {
      const cwd = tempDir()
      const input = [fact, '/new', question, '/new', question, '/new', question, ''].join('\n')
      const { code, stdout } = await engram(['chat'], { cwd, input })
      expect(code).toBe(0)
      const answers = stdout.split('\n').filter((line) => line.includes('engram › From a past conversation'))
      expect(answers).toHaveLength(3)
      for (const answer of answers) expect(answer).toContain(fact)
      expect(stdout).not.toContain('From a past conversation: I found nothing')

      const { hits } = await engramJson<{ hits: Json[] }>(['search', word, '--limit', '50'], { cwd })
      expect(hits[0]).toMatchObject({ kind: 'message', role: 'user' })
      expect(String(hits[0].snippet).replace(/[«»]/g, '')).toBe(fact)
      // the echoes are stored (and exported) but not shown: the fact, the offline model's "Noted" quote of
      // it, and the three questions below them
      const shown = hits.map((hit: Json) => String(hit.snippet))
      expect(shown.join('\n')).not.toMatch(/found nothing|No past session|results? for|session_search/)
      expect(shown.slice(-3).every((s: string) => /[?？]$/.test(s.replace(/[«»]/g, '')))).toBe(true)
    })
  }
})
