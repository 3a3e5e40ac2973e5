import type { ChatMessage } from '@engram/core'
import { describe, expect, it } from 'vitest'
import { findBoundaries } from '../src/boundaries.ts'
import { summaryMessage } from '../src/summary.ts'
import type { TokenCounter } from '../src/tokens.ts'
import { assistant, call, callsTo, result, system, user } from './helpers.ts'

/** Every message costs 10 tokens, so budgets read as message counts. */
const tens: TokenCounter = { countText: (text) => text.length, countMessage: () => 10 }
const cut = (messages: ChatMessage[], tailMessages: number, headProtectMessages = 3) =>
  findBoundaries(messages, tens, { headProtectMessages, tailBudgetTokens: tailMessages * 10 })

const chat = [
  system(), // 0
  user('u1'), // 1
  assistant('a1'), // 2
  user('u2'), // 3
  assistant('a2'), // 4
  user('u3'), // 5
  callsTo(call('c3', 'read_file', { path: 'a.ts' })), // 6
  result('c3', 'contents'), // 7
  assistant('a3'), // 8
  user('u4'), // 9
  assistant('a4'), // 10
]

describe('findBoundaries', () => {
  it('protects the system prompt and head, extending a head that ends on a user turn over its reply', () => {
    const bounds = cut(chat, 3)
    expect(bounds).toEqual({
      headEnd: 5,
      tailStart: 8,
      pruneEnd: 8,
      summaryRole: 'user',
      previousSummaryIndex: -1,
    })
  })

  it('never starts the tail on a tool result, moving back to the call', () => {
    expect(cut(chat, 4)).toMatchObject({ tailStart: 6, pruneEnd: 6, summaryRole: 'user' })
  })

  it('moves the tail forward past the results of a call that would take it over a quarter past its budget', () => {
    // The budget (7 messages) reaches the last of three results; their call would make the tail 10, over 8.75.
    const messages = [system(), user('u1'), assistant('a1'), user('u2')]
    messages.push(callsTo(call('a', 'ls', {}), call('b', 'ls', {}), call('c', 'ls', {})))
    messages.push(result('a', '1'), result('b', '2'), result('c', '3'))
    messages.push(assistant('a2'), user('u3'), assistant('a3'), user('u4'), assistant('a4'), user('u5'))
    expect(cut(messages, 7, 1)).toMatchObject({ headEnd: 3, tailStart: 8, pruneEnd: 8, summaryRole: 'user' })
    // With a budget of 8 the whole group makes 10, a quarter past it: the call stays with its results.
    expect(cut(messages, 8, 1)).toMatchObject({ tailStart: 4, pruneEnd: 4 })
  })

  it('extends the head over the results of its last tool calls', () => {
    const messages = [
      system(),
      user('u1'),
      callsTo(call('a', 'ls', {}), call('b', 'ls', {})),
      result('a', '1'),
    ]
    messages.push(result('b', '2'), assistant('a1'), user('u2'), assistant('a2'), user('u3'), assistant('a3'))
    expect(cut(messages, 2, 2)).toMatchObject({ headEnd: 5, tailStart: 8 })
  })

  it('keeps the last user message, and moves on so the summary repeats neither neighbour’s role', () => {
    // Budget alone would keep only a4; u4 must stay, and a user summary cannot precede it.
    const bounds = cut(chat, 1)
    expect(bounds).toMatchObject({ headEnd: 5, tailStart: 8, pruneEnd: 10, summaryRole: 'user' })
  })

  it('uses an assistant summary between a tool result and a user turn', () => {
    const messages = [system(), user('u1'), callsTo(call('a', 'ls', {})), result('a', '1')]
    messages.push(user('u2'), assistant('a2'), user('u3'), assistant('a3'))
    expect(cut(messages, 2)).toMatchObject({ headEnd: 4, tailStart: 6, summaryRole: 'assistant' })
  })

  it('uses an assistant summary between two user turns', () => {
    const messages = [user('u1'), user('u2'), assistant('a2'), user('u3'), assistant('a3')]
    expect(cut(messages, 2, 1)).toMatchObject({ headEnd: 1, tailStart: 3, summaryRole: 'assistant' })
  })

  it('summarises nothing when no role fits before the middle runs out', () => {
    const messages = [system(), user('u1'), user('u2'), user('u3')]
    expect(cut(messages, 1, 0)).toMatchObject({ headEnd: 1, tailStart: 1, summaryRole: null })
  })

  it('protects only the system prompt on a later pass, and folds the previous summary in', () => {
    const messages = [system(), user('u1'), assistant('a1'), summaryMessage('old', 'user'), ...chat.slice(4)]
    expect(cut(messages, 3)).toEqual({
      headEnd: 1,
      tailStart: 8,
      pruneEnd: 8,
      summaryRole: 'user',
      previousSummaryIndex: 3,
    })
  })

  it('keeps the old head on a later pass when it still holds the latest user message', () => {
    const messages = [system(), user('the only request'), callsTo(call('1', 'ls', {})), result('1', 'x')]
    messages.push(summaryMessage('old', 'user'), callsTo(call('2', 'ls', {})), result('2', 'y'))
    messages.push(callsTo(call('3', 'ls', {})), result('3', 'z'), assistant('done'))
    expect(cut(messages, 3)).toMatchObject({
      headEnd: 4,
      tailStart: 7,
      summaryRole: 'user',
      previousSummaryIndex: 4,
    })
  })

  it('never leaves the previous summary in the tail', () => {
    const messages = [system(), user('u1'), assistant('a1'), summaryMessage('old', 'user'), assistant('a2')]
    expect(cut(messages, 10)).toMatchObject({ headEnd: 3, tailStart: 4, previousSummaryIndex: 3 })
  })

  it('protects nothing but the system prompt with head_protect_messages = 0', () => {
    expect(cut(chat, 3, 0)).toMatchObject({ headEnd: 1, tailStart: 8 })
  })
})
