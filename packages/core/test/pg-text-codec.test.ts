import fc from 'fast-check'
import { expect, it } from 'vitest'
import { escapeText, unescapeText } from '../src/dialects/postgres/text-codec.ts'

// Text as the PostgreSQL dialect stores it: NULs and the escape character often, any other code unit too.
const text = fc.string({
  unit: fc.oneof(
    fc.constant('\0'),
    fc.constant('\uE000'),
    fc.constant('0'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 200,
})

it('escapes every NUL away and unescapes to the same text, whatever the text', () => {
  fc.assert(
    fc.property(text, (s) => {
      const stored = escapeText(s)
      expect(stored.includes('\0')).toBe(false)
      expect(unescapeText(stored)).toBe(s)
    }),
  )
  expect(escapeText('plain text')).toBe('plain text')
  expect(escapeText('a\0b\uE000c')).toBe('a\uE0000b\uE000\uE000c')
})

it('unescapes a stored text cut anywhere (a substr of it) to a start of the original', () => {
  fc.assert(
    fc.property(text, fc.nat(), (s, at) => {
      const stored = escapeText(s)
      const cut = unescapeText(stored.slice(0, at % (stored.length + 1)))
      expect(s.startsWith(cut)).toBe(true)
    }),
  )
})
