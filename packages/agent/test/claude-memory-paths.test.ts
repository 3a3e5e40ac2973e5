import { posix } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MemoryToolError, memoryPath } from '../src/claude-memory/index.ts'

/** Plain names: letters, digits, CJK, dots, dashes and spaces inside. */
const name = fc
  .stringMatching(/^[A-Za-z0-9\u4e00-\u4e20][A-Za-z0-9 ._\-\u4e00-\u4e20]{0,12}$/)
  .filter((n) => n.trim() === n && n !== '.' && n !== '..')

/** Pieces a hostile path is made of. */
const piece = fc.oneof(
  name,
  fc.constantFrom(
    '..',
    '.',
    '',
    '/',
    '//',
    '\\',
    '%2f',
    '%2F',
    '%5c',
    '%2e%2e',
    '%00',
    '\0',
    '\u2215',
    '\uff0f',
  ),
  fc.constantFrom(
    '~',
    '~root',
    'link -> /etc',
    'C:',
    '\u202e',
    '\u200b',
    '/etc/passwd',
    'memories',
    '/memories',
  ),
  fc.string({ maxLength: 6, unit: 'binary' }),
)

const refusal = (path: unknown) => {
  try {
    memoryPath(path)
    return null
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryToolError)
    return (error as Error).message
  }
}

describe('memory tool paths', () => {
  it('plain names under /memories normalise to one path: repeated, trailing slashes and "." names dropped, idempotent', () => {
    fc.assert(
      fc.property(
        fc.array(name, { maxLength: 6 }),
        fc.array(fc.constantFrom('/', '//', '/./'), { minLength: 7, maxLength: 7 }),
        (names, seps) => {
          const raw = `/memories${names.map((n, i) => `${seps[i]}${n}`).join('')}${seps[6]}`
          const { path, segments } = memoryPath(raw)
          expect(segments).toEqual(names)
          expect(path).toBe(['/memories', ...names].join('/'))
          expect(memoryPath(path).path).toBe(path)
          expect(posix.normalize(path)).toBe(path)
        },
      ),
    )
  })

  it('whatever a path is made of, it is refused or it is a normalised path inside /memories', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.boolean(), (pieces, rooted) => {
        const raw = `${rooted ? '/memories/' : ''}${pieces.join('')}`
        let result: ReturnType<typeof memoryPath>
        try {
          result = memoryPath(raw)
        } catch (error) {
          expect(error).toBeInstanceOf(MemoryToolError)
          return
        }
        const { path, segments } = result
        expect(path === '/memories' || path.startsWith('/memories/')).toBe(true)
        // What a file system would make of it is the same path: nothing climbs out or hides a separator.
        expect(posix.resolve('/', path)).toBe(path)
        expect(posix.normalize(path)).toBe(path)
        expect(segments.every((s) => s !== '..' && s !== '.' && s !== '' && !s.includes('/'))).toBe(true)
        expect(path).not.toMatch(/[\\\0%\u2215\uff0f\u202e\u200b]|->|\/~/)
        expect(memoryPath(path).path).toBe(path)
      }),
      { numRuns: 2_000 },
    )
  })

  it('".." anywhere is refused, even when it would stay inside /memories', () => {
    fc.assert(
      fc.property(fc.array(name, { maxLength: 4 }), fc.array(name, { maxLength: 4 }), (before, after) => {
        expect(refusal(['/memories', ...before, '..', ...after].join('/'))).toMatch(/"\.\." would leave/)
      }),
    )
  })

  it.each(
    (
      [
        ['/etc/passwd', /not under \/memories/],
        ['/memoriesX/a', /not under \/memories/],
        ['memories/a', /not under \/memories/],
        ['', /not under \/memories/],
        ['/', /not under \/memories/],
        ['/memories/%2e%2e/%2e%2e/etc/passwd', /percent-encoded/],
        ['/memories/a%2fb', /percent-encoded/],
        ['/memories/a%5Cb', /percent-encoded/],
        ['/memories/a\\..\\..\\etc', /backslash/],
        ['/memories/a\0.md', /control, invisible/],
        ['/memories/a\u2215..\u2215etc', /look-alike slash/],
        ['/memories/\u202egnp.exe', /control, invisible/],
        ['/memories/~/.ssh/id_rsa', /home folder/],
        ['/memories/link -> /etc', /symbolic link/],
        ['/memories/C:/Windows', /drive letter/],
        ['/memories/ a.md', /starts or ends with a space/],
        [`/memories/${'d/'.repeat(17)}f`, /nested deeper/],
        [`/memories/${'x'.repeat(1_100)}`, /longer than/],
        [42, /must be a string/],
      ] as [unknown, RegExp][]
    ).map(([path, why]) => [JSON.stringify(path).slice(0, 60), path, why] as const),
  )('refuses %s', (_, path, why) => {
    expect(refusal(path)).toMatch(why)
  })
})
