import type { Session, StoredMessage } from '@engram/core'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import type { ExportDocument } from '../src/transfer/document.ts'
import { FORMATS, parseExport, serialize } from '../src/transfer/formats.ts'

// Text that tries to break the formats: fences, comment ends, fake data comments, line breaks, CJK.
const hostile = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc
    .array(
      fc.constantFrom(
        '```',
        '````text',
        '-->',
        '<!-- engram:message {"role":"user"} -->',
        '\n',
        '\r\n',
        '后端',
        '«»',
        ' ',
        '\u2028',
        '\u2029',
        'x',
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join('')),
)

const session = (id: string, title: string | null, parent: string | null): Session => ({
  id,
  source: 'cli',
  userId: null,
  model: 'm',
  title,
  systemPrompt: 'prompt\n-->',
  modelConfig: { contextWindow: 6_000, maxTokens: 700, note: 'settings -->' },
  parentSessionId: parent,
  startedAt: 1_700_000_000_000,
  endedAt: null,
  endReason: null,
  messageCount: 0,
  toolCallCount: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
})

const message = fc
  .record({
    kind: fc.constantFrom('user', 'assistant', 'tool', 'null-content'),
    content: hostile,
    name: hostile,
    tool: hostile,
  })
  .map(({ kind, content, name, tool }): Omit<StoredMessage, 'id' | 'sessionId'> => {
    const record = { timestamp: 1_700_000_000_123, tokenCount: null }
    if (kind === 'tool') return { role: 'tool', content, tool_call_id: 'c1', name, ...record }
    if (kind === 'null-content') {
      return {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: tool, arguments: JSON.stringify({ q: content }) } },
        ],
        ...record,
      }
    }
    return { role: kind as 'user' | 'assistant', content, ...record } as Omit<
      StoredMessage,
      'id' | 'sessionId'
    >
  })

const document = fc
  .record({
    title: fc.option(hostile, { nil: null }),
    first: fc.array(message, { maxLength: 6 }),
    second: fc.array(message, { maxLength: 4 }),
  })
  .map(({ title, first, second }): ExportDocument => {
    let id = 0
    const stored = (sessionId: string, list: typeof first) =>
      list.map((m) => ({ ...m, id: ++id, sessionId }) as StoredMessage)
    return {
      format: 'engram-export',
      version: 1,
      exportedAt: 1_700_000_000_999,
      sessions: [
        { session: session('root', title, null), messages: stored('root', first), episodes: [], usage: [] },
        {
          session: session('child', title, 'root'),
          messages: stored('child', second),
          episodes: [],
          usage: [],
        },
      ],
    }
  })

describe('export formats', () => {
  it.each(FORMATS)('%s reads back exactly what it wrote, whatever the text (property)', (format) => {
    fc.assert(
      fc.property(document, (doc) => {
        expect(parseExport(serialize(doc, format), `export.${format}`)).toEqual(doc)
      }),
      { numRuns: 150 },
    )
  })

  it('parses a large Markdown export with work linear in its size (regex steps counted)', () => {
    const docOf = (lines: number): ExportDocument => ({
      format: 'engram-export',
      version: 1,
      exportedAt: 1,
      sessions: [
        {
          session: session('root', 't', null),
          messages: Array.from({ length: 4 }, (_, i) => ({
            id: i + 1,
            sessionId: 'root',
            role: 'user' as const,
            content: 'a```b-->c\n'.repeat(lines),
            timestamp: 1,
            tokenCount: null,
          })),
          episodes: [],
          usage: [],
        },
      ],
    })
    /** How many regular-expression runs reading the export back takes (every match, test and replace). */
    const stepsToParse = (doc: ExportDocument) => {
      const text = serialize(doc, 'md')
      const exec = vi.spyOn(RegExp.prototype, 'exec')
      try {
        expect(parseExport(text, 'big.md')).toEqual(doc)
        return exec.mock.calls.length
      } finally {
        exec.mockRestore()
      }
    }
    const small = stepsToParse(docOf(5_000))
    const large = stepsToParse(docOf(20_000))
    expect(large).toBeLessThanOrEqual(small * 4 * 1.1)
  })
})
