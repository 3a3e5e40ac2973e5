import { describe, expect, it } from 'vitest'
import { pruneToolOutputs } from '../src/prune.ts'
import { assistant, call, callsTo, result, system, user } from './helpers.ts'

const big = (label: string) => `${label}\n${'line of output\n'.repeat(40)}`

describe('pruneToolOutputs', () => {
  const messages = [
    system(),
    user('look at the config'),
    callsTo(call('a', 'read_file', { path: 'src/config.ts', encoding: 'utf8' })),
    result('a', big('config')),
    callsTo(call('b', 'run', { command: 'npm test' })),
    result('b', 'ok'),
    assistant('done'),
    callsTo(call('c', 'read_file', { path: 'src/late.ts' })),
    result('c', big('late')),
  ]

  it('replaces long tool outputs before `end` with a placeholder naming tool, key argument and size', () => {
    const { messages: out, stats } = pruneToolOutputs(messages, 7, 200)
    const original = messages[3]?.content as string
    expect(out[3]).toEqual({
      role: 'tool',
      tool_call_id: 'a',
      content: `[tool output pruned: read_file(src/config.ts) returned ${original.length} chars, 42 lines]`,
    })
    expect(stats).toEqual({ prunedToolOutputs: 1, deduplicatedToolOutputs: 0, shortenedToolArguments: 0 })
  })

  it('leaves short outputs, non-tool messages and everything from `end` on as the same objects', () => {
    const { messages: out } = pruneToolOutputs(messages, 7, 200)
    for (const i of [0, 1, 2, 4, 5, 6, 7, 8]) expect(out[i]).toBe(messages[i])
  })

  it('notes an output repeated identically later as a duplicate', () => {
    const repeated = [
      user('read it twice'),
      callsTo(call('a', 'read_file', { path: 'src/a.ts' })),
      result('a', big('same')),
      callsTo(call('b', 'read_file', { path: 'src/a.ts' })),
      result('b', big('same')),
    ]
    const { messages: out, stats } = pruneToolOutputs(repeated, 3, 200)
    expect(out[2]?.content).toMatch(
      /^\[duplicate of a later result: read_file\(src\/a\.ts\) output, \d+ chars/,
    )
    expect(out[4]).toBe(repeated[4])
    expect(stats.deduplicatedToolOutputs).toBe(1)
  })

  it('does not measure its own placeholders again on a later pass', () => {
    const once = pruneToolOutputs(messages, 7, 200).messages
    const twice = pruneToolOutputs(once, 7, 20)
    expect(twice.messages[3]).toBe(once[3])
    expect(twice.stats.prunedToolOutputs).toBe(0)
  })

  it('shortens long argument strings so the arguments still parse', () => {
    const content = 'x'.repeat(5_000)
    const writes = [callsTo(call('w', 'write_file', { path: 'src/big.ts', content })), result('w', 'written')]
    const { messages: out, stats } = pruneToolOutputs(writes, 2, 200)
    const args = JSON.parse(out[0]?.tool_calls?.[0]?.function.arguments ?? '')
    expect(args.path).toBe('src/big.ts')
    expect(args.content).toBe(`${'x'.repeat(200)}…[4800 more chars pruned]`)
    expect(out[0]?.tool_calls?.[0]?.id).toBe('w')
    expect(stats.shortenedToolArguments).toBe(1)
  })

  it('wraps long arguments that were not JSON into JSON', () => {
    const broken = [callsTo(call('w', 'shell', `{"command": "${'y'.repeat(500)}`)), result('w', 'ok')]
    const args = pruneToolOutputs(broken, 2, 100).messages[0]?.tool_calls?.[0]?.function.arguments ?? ''
    expect(JSON.parse(args)._unparsed_arguments).toMatch(/^\{"command": "y+…\[\d+ more chars pruned\]$/)
  })

  it('keeps short tool-call arguments untouched', () => {
    const { messages: out } = pruneToolOutputs(messages, 9, 200)
    expect(out[2]).toBe(messages[2])
  })
})
