import { describe, expect, it } from 'vitest'
import { MISSING_RESULT_STUB, repairToolPairs } from '../src/repair.ts'
import { assistant, call, callsTo, result, user } from './helpers.ts'

describe('repairToolPairs', () => {
  it('leaves valid pairs as they are', () => {
    const messages = [
      user('go'),
      callsTo(call('a', 'ls', {}), call('b', 'pwd', {})),
      result('b', '/'),
      result('a', '.'),
    ]
    const { messages: out, stats } = repairToolPairs(messages)
    expect(out).toEqual(messages)
    expect(stats).toEqual({ droppedToolResults: 0, stubbedToolCalls: 0 })
  })

  it('drops results whose call is gone, and repeated results', () => {
    const messages = [
      user('go'),
      result('gone', 'orphan'),
      callsTo(call('a', 'ls', {})),
      result('a', '.'),
      result('a', 'again'),
      assistant('done'),
      result('a', 'late'),
    ]
    const { messages: out, stats } = repairToolPairs(messages)
    expect(out).toEqual([user('go'), callsTo(call('a', 'ls', {})), result('a', '.'), assistant('done')])
    expect(stats.droppedToolResults).toBe(3)
  })

  it('gives calls without a result a stub result right after the call', () => {
    const messages = [
      user('go'),
      callsTo(call('a', 'ls', {}), call('b', 'pwd', {})),
      result('a', '.'),
      user('next'),
    ]
    const { messages: out, stats } = repairToolPairs(messages)
    expect(out).toEqual([
      user('go'),
      callsTo(call('a', 'ls', {}), call('b', 'pwd', {})),
      result('a', '.'),
      { role: 'tool', tool_call_id: 'b', content: MISSING_RESULT_STUB },
      user('next'),
    ])
    expect(stats.stubbedToolCalls).toBe(1)
  })
})
