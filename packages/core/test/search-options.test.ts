import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseSearchOptions, searchOptions } from '../src/store/args.ts'
import { parse } from '../src/validation.ts'

/** What the schema alone says of `options`: its output, or its error's message. */
const bySchema = (options: unknown) => {
  try {
    return { ok: parse(searchOptions, options, 'Searching') }
  } catch (error) {
    return { error: (error as Error).message }
  }
}
const byShortcut = (options: unknown) => {
  try {
    return { ok: parseSearchOptions(options, 'Searching') }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

const value = fc.oneof(
  fc.integer({ min: -3, max: 1_200 }),
  fc.constantFrom(0, 1, 1000, 1001, 2.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, -0),
  fc.string({ maxLength: 4 }),
  fc.constantFrom('', 'u', '\ud800', 'a\udc00b', 'relevance', 'newest'),
  fc.constantFrom(undefined, null, true, false, [], ['cli'], {}),
)
const options = fc.dictionary(
  fc.constantFrom(
    'limit',
    'offset',
    'userId',
    'sessionId',
    'sort',
    'source',
    'includeEpisodes',
    'cursor',
    'other',
  ),
  value,
  { maxKeys: 4 },
)

describe('search options', () => {
  it('the shortcut accepts and returns exactly what the schema does, errors included (property)', () => {
    fc.assert(
      fc.property(options, (o) => {
        expect(byShortcut(o)).toEqual(bySchema(o))
      }),
      { numRuns: 3000 },
    )
    for (const o of [undefined, null, 'x', 5, [], Object.create({ limit: 3 }), new (class {})()]) {
      expect(byShortcut(o)).toEqual(bySchema(o))
    }
  })

  it('takes the common options without the schema, over its defaults', () => {
    expect(parseSearchOptions({ limit: 5, userId: 'u' }, 'Searching')).toEqual({
      sort: 'relevance',
      includeEpisodes: true,
      includeRetrieval: false,
      limit: 5,
      offset: 0,
      userId: 'u',
    })
    expect(parseSearchOptions({}, 'Searching')).toEqual(parse(searchOptions, {}, 'Searching'))
  })
})
