import fc from 'fast-check'
import { expect, it } from 'vitest'
import { LineLimit, type OversizedLine, requestIdOf } from '../src/stdio-lines.ts'

/** Feeds `chunks` through a LineLimit and returns the chunks it let through and the lines it dropped. */
async function run(limit: number, chunks: Buffer[]) {
  const dropped: OversizedLine[] = []
  const filter = new LineLimit(limit, (line) => dropped.push(line))
  const out: Buffer[] = []
  filter.on('data', (chunk: Buffer) => out.push(chunk))
  const ended = new Promise((resolve) => filter.on('end', resolve))
  for (const chunk of chunks) filter.write(chunk)
  filter.end()
  await ended
  return { out: out.map((b) => b.toString('latin1')), dropped }
}

it('passes each line of at most the limit whole, in order, and drops every longer one, however stdin is chunked', async () => {
  const line = fc.string({ unit: fc.constantFrom('a', 'b', '{', '"'), maxLength: 40 }).map((s) => `${s}\n`)
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { maxLength: 12 }),
      fc.integer({ min: 1, max: 30 }),
      fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 8 }),
      async (lines, limit, cuts) => {
        const all = Buffer.from(lines.join(''), 'latin1')
        const chunks: Buffer[] = []
        for (let at = 0, i = 0; at < all.length; i++) {
          const size = cuts[i % cuts.length] as number
          chunks.push(all.subarray(at, at + size))
          at += size
        }
        const { out, dropped } = await run(limit, chunks)
        expect(out).toEqual(lines.filter((l) => l.length <= limit))
        expect(dropped.map((d) => d.bytes)).toEqual(
          lines.filter((l) => l.length > limit).map((l) => l.length),
        )
      },
    ),
    { numRuns: 300 },
  )
})

it("reads a request's id from the line's end (the TypeScript SDK's order) or start, never a nested id", () => {
  const id = fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.string({ maxLength: 12 }))
  const params = fc.jsonValue({ maxDepth: 3 })
  fc.assert(
    fc.property(id, params, fc.boolean(), (requestId, value, idFirst) => {
      // Nested ids that must not be taken for the request's.
      const nested = { id: 'nested', arguments: { messages: [{ id: 7, content: value }] } }
      const request = idFirst
        ? { jsonrpc: '2.0', id: requestId, method: 'tools/call', params: nested }
        : { method: 'tools/call', params: nested, jsonrpc: '2.0', id: requestId }
      const line = JSON.stringify(request)
      expect(requestIdOf(line.slice(0, 512), line.slice(-512))).toEqual(requestId)
      const notification = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: nested })
      expect(requestIdOf(notification.slice(0, 512), notification.slice(-512))).toBeUndefined()
    }),
    { numRuns: 300 },
  )
})
