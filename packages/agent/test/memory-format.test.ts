import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type MemoryOperation, MemoryRefusal } from '../src/index.ts'
import {
  countChars,
  ENTRY_DELIMITER,
  joinEntries,
  parseEntries,
  parseText,
  serializeEntries,
} from '../src/memory/format.ts'
import { applyOperations } from '../src/memory/operations.ts'

const bytes = (text: string) => new TextEncoder().encode(text)

function refusal(run: () => unknown): MemoryRefusal {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryRefusal)
    return error as MemoryRefusal
  }
  throw new Error('expected a refusal')
}

describe('the memory file format', () => {
  it('counts characters as the user sees them', () => {
    expect(countChars('abc')).toBe(3)
    expect(countChars('用户喜欢简洁的回答')).toBe(9)
    expect(countChars('👍🏽')).toBe(1)
    expect(countChars('👨‍👩‍👧')).toBe(1)
    expect(countChars('e\u0301')).toBe(1)
    expect(countChars('')).toBe(0)
  })

  it('splits entries on a line holding only the delimiter, trims them and drops blank ones', () => {
    const text = `first entry\nwith two lines\n${ENTRY_DELIMITER}\n  second  \n ${ENTRY_DELIMITER} \n\n${ENTRY_DELIMITER}\n§ not a delimiter\n`
    expect(parseText(text)).toEqual({
      ok: true,
      entries: ['first entry\nwith two lines', 'second', '§ not a delimiter'],
    })
    expect(parseText('')).toEqual({ ok: true, entries: [] })
    expect(parseText('a\r\n§\r\nb')).toEqual({ ok: true, entries: ['a', 'b'] })
    expect(parseText('\ufeffa')).toEqual({ ok: true, entries: ['a'] })
  })

  it('round-trips entries through the file bytes, and usage is the characters of the joined entries', () => {
    const entries = ['one', '二', 'three\nlines\nhere']
    const file = serializeEntries(entries)
    expect(file).toBe(`one\n§\n二\n§\nthree\nlines\nhere\n`)
    expect(parseEntries(bytes(file))).toEqual({ ok: true, entries })
    expect(countChars(joinEntries(entries))).toBe(3 + 3 + 1 + 3 + 16)
    expect(serializeEntries([])).toBe('')
  })

  it('does not parse binary, control characters or merge conflict markers', () => {
    expect(parseEntries(new Uint8Array([0x61, 0xff, 0xfe]))).toEqual({
      ok: false,
      reason: 'the file is not valid UTF-8 text',
    })
    expect(parseText('a\n§\nb\u0000c')).toEqual({ ok: false, reason: 'line 3 holds a control character' })
    expect(parseText('a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> branch')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('line 2 is a merge conflict marker'),
    })
  })
})

describe('applying operations', () => {
  const entries = ['The deploy script uses curl', 'User prefers pnpm', 'Tests run with vitest']

  it('adds, replaces and removes by a unique substring, in order', () => {
    const result = applyOperations(
      entries,
      [
        { action: 'remove', old_text: 'pnpm' },
        { action: 'replace', old_text: 'curl', content: 'The deploy script uses wget' },
        { action: 'add', content: '  CI runs on Node 20  ' },
      ],
      2200,
      'MEMORY.md',
    )
    expect(result.entries).toEqual([
      'The deploy script uses wget',
      'Tests run with vitest',
      'CI runs on Node 20',
    ])
    expect(result.changes).toEqual({ added: 1, replaced: 1, removed: 1, unchanged: 0 })
    expect(result.chars).toBe(countChars(joinEntries(result.entries)))
  })

  it('changes nothing when the added entry is already there', () => {
    const result = applyOperations(
      entries,
      [{ action: 'add', content: 'User prefers pnpm' }],
      2200,
      'MEMORY.md',
    )
    expect(result.entries).toEqual(entries)
    expect(result.changes.unchanged).toBe(1)
  })

  it('refuses an ambiguous substring and lists the matching entries', () => {
    const error = refusal(() =>
      applyOperations(entries, [{ action: 'remove', old_text: 'e' }], 2200, 'MEMORY.md'),
    )
    expect(error.reason).toBe('ambiguous')
    expect(error.message).toContain('matches 3 entries in MEMORY.md')
    for (const entry of entries) expect(error.message).toContain(entry)
  })

  it('refuses a substring no entry contains', () => {
    const error = refusal(() =>
      applyOperations(entries, [{ action: 'replace', old_text: 'yarn', content: 'x' }], 2200, 'USER.md'),
    )
    expect(error.reason).toBe('not_found')
    // One operation: no number to puzzle over; in a batch the message names which one.
    expect(error.message).toMatch(/^No entry in USER\.md contains "yarn"/)
    const inBatch = refusal(() =>
      applyOperations(
        entries,
        [
          { action: 'add', content: 'y' },
          { action: 'remove', old_text: 'yarn' },
        ],
        2200,
        'USER.md',
      ),
    )
    expect(inBatch.message).toMatch(/^Operation 2: no entry in USER\.md contains "yarn"/)
  })

  it('refuses an entry longer than the whole file may be: no consolidation can make room for it', () => {
    for (const [existing, limit] of [
      [entries, 90],
      [[], 30],
    ] as const) {
      const error = refusal(() =>
        applyOperations(existing, [{ action: 'add', content: 'x'.repeat(limit + 1) }], limit, 'USER.md'),
      )
      expect(error.reason).toBe('entry_too_long')
      expect(error.message).toBe(
        `The entry alone is longer than the whole of USER.md may be (its cap is ${limit} characters), so no consolidation can make room for it. Nothing was written. Save the durable facts it holds as a few short entries instead.`,
      )
    }
    const replaced = refusal(() =>
      applyOperations(
        entries,
        [{ action: 'replace', old_text: 'pnpm', content: 'y'.repeat(91) }],
        90,
        'MEMORY.md',
      ),
    )
    expect(replaced.reason).toBe('entry_too_long')
  })

  it('refuses a batch over the cap with the usage and the entries, and never truncates', () => {
    const error = refusal(() =>
      applyOperations(entries, [{ action: 'add', content: 'x'.repeat(40) }], 90, 'MEMORY.md'),
    )
    expect(error.reason).toBe('over_cap')
    expect(error.message).toContain('over its cap of 90')
    expect(error.message).toContain('Consolidate')
    expect(error.message).toContain('User prefers pnpm')
  })

  it('checks the cap after the whole batch, so a consolidation can remove and then add', () => {
    const limit = countChars(joinEntries(entries))
    const ops: MemoryOperation[] = [
      { action: 'add', content: 'Deploys use curl; tests use vitest' },
      { action: 'remove', old_text: 'deploy script' },
      { action: 'remove', old_text: 'Tests run' },
    ]
    expect(applyOperations(entries, ops, limit, 'MEMORY.md').entries).toEqual([
      'User prefers pnpm',
      'Deploys use curl; tests use vitest',
    ])
  })

  it('lets a file edited past the cap shrink, but not grow', () => {
    const big = ['a'.repeat(100), 'b'.repeat(100)]
    expect(applyOperations(big, [{ action: 'remove', old_text: 'bbb' }], 50, 'MEMORY.md').chars).toBe(100)
    expect(
      refusal(() => applyOperations(big, [{ action: 'add', content: 'c' }], 50, 'MEMORY.md')).reason,
    ).toBe('over_cap')
  })

  it('refuses content that would not round-trip as one entry', () => {
    for (const content of ['', '   ', `one\n${ENTRY_DELIMITER}\ntwo`, 'a\u0007b', '=======']) {
      expect(refusal(() => applyOperations([], [{ action: 'add', content }], 2200, 'MEMORY.md')).reason).toBe(
        'invalid',
      )
    }
    expect(refusal(() => applyOperations([], [], 2200, 'MEMORY.md')).reason).toBe('invalid')
    expect(
      refusal(() =>
        applyOperations(entries, [{ action: 'move' } as unknown as MemoryOperation], 2200, 'MEMORY.md'),
      ).message,
    ).toContain('Action must be "add", "replace" or "remove"')
  })
})

/** The model: entries as a list; an operation either applies exactly as described or the batch is refused. */
function model(entries: string[], ops: MemoryOperation[], limit: number): string[] | 'refused' {
  const next = [...entries]
  for (const op of ops) {
    if (op.action === 'add') {
      const content = op.content.trim()
      if (!next.includes(content)) next.push(content)
      continue
    }
    const matches = next.filter((e) => e.includes(op.old_text.trim()))
    if (matches.length !== 1) return 'refused'
    const at = next.indexOf(matches[0] as string)
    if (op.action === 'remove') next.splice(at, 1)
    else if (next.some((e, i) => e === op.content.trim() && i !== at)) next.splice(at, 1)
    else next[at] = op.content.trim()
  }
  const size = (list: string[]) => countChars(list.join(`\n${ENTRY_DELIMITER}\n`))
  return size(next) > limit && size(next) > size(entries) ? 'refused' : next
}

const word = fc.constantFrom('alpha', 'beta', '用户', 'gamma', '喜欢', 'delta 👍🏽', 'e\u0301', 'x')
const content = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '))
const operation: fc.Arbitrary<MemoryOperation> = fc.oneof(
  content.map((c) => ({ action: 'add' as const, content: c })),
  fc.tuple(word, content).map(([old_text, c]) => ({ action: 'replace' as const, old_text, content: c })),
  word.map((old_text) => ({ action: 'remove' as const, old_text })),
)

describe('property: any sequence of batches keeps the file parseable and within the cap', () => {
  it('matches the in-memory model', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(operation, { minLength: 1, maxLength: 4 }), { maxLength: 25 }),
        fc.integer({ min: 10, max: 120 }),
        (batches, limit) => {
          let file = ''
          let expected: string[] = []
          for (const batch of batches) {
            const parsed = parseEntries(bytes(file))
            if (!parsed.ok) throw new Error(`unparseable file: ${parsed.reason}`)
            expect(parsed.entries).toEqual(expected)
            const want = model(parsed.entries, batch, limit)
            let got: string[] | 'refused'
            try {
              got = applyOperations(parsed.entries, batch, limit, 'MEMORY.md').entries
            } catch (error) {
              if (!(error instanceof MemoryRefusal)) throw error
              got = 'refused'
            }
            expect(got).toEqual(want)
            if (got !== 'refused') {
              file = serializeEntries(got)
              expected = got
            }
            expect(countChars(joinEntries(expected))).toBeLessThanOrEqual(limit)
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('grapheme counting is linear and exact', () => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })
  const whole = (text: string) => {
    let count = 0
    for (const _ of segmenter.segment(text)) count++
    return count
  }
  const piece = fc.constantFrom(
    ...[
      'a',
      ' ',
      '中',
      '\n',
      '\r\n',
      '\r',
      'e\u0301',
      '\u0301',
      '👍🏽',
      '👨‍👩‍👧',
      '\u200d',
      '🇫',
      '🇷',
      'é',
      '§',
      '\ufe0f',
      '©',
    ],
    ...[
      '🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}',
      '\u0915\u094d\u0937',
      '각',
      '\u1100',
      '\u1161',
      '\u11a8',
    ],
  )

  it('property: counting in windows gives what one segmenter pass over the whole text gives', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), fc.integer({ min: 4, max: 16 }), (pieces, window) => {
        const text = pieces.join('')
        expect(countChars(text, { window })).toBe(whole(text))
      }),
      { numRuns: 1_000 },
    )
    // A joiner after marks on a letter does not pull in a following pictograph (found by the property).
    const letter = 'a\u0301\u0301\u200d\u00a9'
    expect(countChars(letter, { window: 4 })).toBe(whole(letter))
    // Two joiners in a row end the emoji sequence: the second flag is a grapheme of its own.
    const scotland = '🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}'
    const flags = `${scotland}\u200d\u200d${scotland}`
    expect(countChars(flags, { window: 4 })).toBe(whole(flags))
  })

  it('hands the segmenter work proportional to the text, only around complex characters, in bounded calls', () => {
    const sizes = [25_000, 50_000, 100_000, 1_000_000]
    const rows = sizes.map((size) => {
      const mixed = 'The user likes 👍🏽 and 用户喜欢 e\u0301 '.repeat(size / 30).slice(0, size)
      const emoji = '👨‍👩‍👧'.repeat(size / 8)
      const meters = [mixed, emoji].map((text) => {
        const meter = { chars: 0, calls: 0 }
        countChars(text, { meter })
        return { ...meter, size: text.length }
      })
      return meters
    })
    for (const [index, [mixed, emoji]] of rows.entries()) {
      if (!mixed || !emoji) throw new Error('missing row')
      // Each segmenter call gets at most one window (plus a surrogate), so no call can be quadratic.
      expect(emoji.chars / emoji.calls).toBeLessThanOrEqual(1_025)
      expect(emoji.chars).toBeLessThanOrEqual(emoji.size * 1.01)
      expect(mixed.chars).toBeLessThanOrEqual(mixed.size * 0.5)
      if (index > 0) {
        const [before] = rows[index - 1] as [typeof mixed]
        expect(mixed.chars / mixed.size).toBeCloseTo(before.chars / before.size, 1)
      }
    }
  })

  it('stops once the count passes max', () => {
    const meter = { chars: 0, calls: 0 }
    expect(countChars('👍🏽'.repeat(500_000), { meter, max: 2_200 })).toBeGreaterThan(2_200)
    expect(meter.chars).toBeLessThan(10_000)
  })
})
