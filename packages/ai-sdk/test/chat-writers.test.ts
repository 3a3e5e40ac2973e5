import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { EngramError, openStore } from '@engram/core'
import type { UIMessage } from 'ai'
import { afterEach, expect, it } from 'vitest'
import {
  exitWithin,
  killIfRunning,
  spawnProcess,
  TSX_LOADER,
  waitForLine,
} from '../../core/test/processes/spawn.ts'
import { createChatStore } from '../src/index.ts'
import { tempWorld } from './ai-helpers.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const WRITERS = 4
const ROUNDS = 30
const script = fileURLToPath(new URL('./processes/chat-writer-child.ts', import.meta.url))
const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })

it('4 processes each loading, appending and saving one chat lose no acknowledged message', {
  timeout: 600_000,
}, async () => {
  const world = tempWorld()
  cleanups.push(world.cleanup)
  const goFile = `${world.dbPath}.go`
  const writers = Array.from({ length: WRITERS }, (_, w) => {
    const child = spawnProcess(process.execPath, [
      '--conditions=engram-source',
      '--import',
      TSX_LOADER,
      script,
      world.dbPath,
      'shared-chat',
      `w${w}`,
      goFile,
      String(ROUNDS),
    ])
    cleanups.push(() => killIfRunning(child))
    return child
  })
  await Promise.all(writers.map((child) => waitForLine(child, (line) => line === 'READY', 600_000)))
  writeFileSync(goFile, '')
  for (const child of writers) expect((await exitWithin(child, 600_000)).code, child.describe()).toBe(0)
  const acknowledged = writers.flatMap((child) =>
    child
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('ACK '))
      .map((line) => line.slice('ACK '.length)),
  )
  expect(acknowledged).toHaveLength(WRITERS * ROUNDS)
  const store = await openStore({ url: world.dbPath })
  cleanups.push(() => store.close())
  const ids = (await createChatStore({ store }).loadChat('shared-chat')).map((m) => m.id)
  // Every acknowledged save is in the chat, once; nothing else is.
  expect(acknowledged.filter((id) => !ids.includes(id))).toEqual([])
  expect([...ids].sort()).toEqual([...acknowledged].sort())
  // Each writer's messages are in the order it saved them.
  for (let w = 0; w < WRITERS; w++) {
    const own = ids.filter((id) => id.startsWith(`w${w}-`))
    expect(own).toEqual(Array.from({ length: ROUNDS }, (_, i) => `w${w}-${i}`))
  }
})

it('a regenerated answer replaces the one its writer loaded, and keeps what another writer added meanwhile', async () => {
  const world = tempWorld()
  cleanups.push(world.cleanup)
  const store = await openStore({ url: world.dbPath })
  cleanups.push(() => store.close())
  const [first, second] = [createChatStore({ store }), createChatStore({ store })]
  const answer = (id: string, text: string): UIMessage => ({
    id,
    role: 'assistant',
    parts: [{ type: 'text', text }],
  })
  await first.saveChat({ id: 'c', messages: [user('u1', 'hi'), answer('a1', 'hello')] })
  const loaded = await first.loadChat('c')
  const other = await second.loadChat('c')
  await second.saveChat({ id: 'c', messages: [...other, user('u2', 'from another tab')] })
  // The first writer regenerates a1 (the AI SDK drops it and streams a new answer).
  await first.saveChat({ id: 'c', messages: [...loaded.slice(0, 1), answer('a1b', 'hello again')] })
  expect((await first.loadChat('c')).map((m) => m.id)).toEqual(['u1', 'u2', 'a1b'])
  // A store that never loaded the chat saves its list as the chat.
  const blind = createChatStore({ store })
  await blind.saveChat({ id: 'c', messages: [user('u1', 'hi')] })
  expect((await blind.loadChat('c')).map((m) => m.id)).toEqual(['u1'])
})

it('refuses at save, with the cause, what loadChat could not read back; the chat stays loadable and unchanged', async () => {
  const world = tempWorld()
  cleanups.push(world.cleanup)
  const store = await openStore({ url: world.dbPath })
  cleanups.push(() => store.close())
  const chats = createChatStore({ store })
  const good = [user('u1', 'kept')]
  await chats.saveChat({ id: 'c', messages: good })
  const before = (await store.getMessages('c')).length
  const bad: [unknown, RegExp][] = [
    [
      [...good, { id: 'x', role: 'user', parts: [{ type: 'no-such-part', text: 'sk-secret' }] }],
      /message 2 .*id "x".*parts\.0(\.type)?: not one of the AI SDK's part types/,
    ],
    [
      [...good, { id: 42, role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      /message 2 .*id 42.*id: Invalid input: expected string/,
    ],
    [
      [...good, { id: 'y', role: 'user', parts: 'just text' }],
      /message 2 .*id "y".*parts: Invalid input: expected array/,
    ],
    [[...good, { id: 'z', role: 'robot', parts: [] }], /message 2 .*id "z"/],
    [[...good, null], /message 2 .*id none/],
    ['not a list', /must be a list of UIMessages/],
    [[...good, user('u1', 'twice')], /message id "u1" appears twice/],
  ]
  for (const [messages, cause] of bad) {
    const error = await chats.saveChat({ id: 'c', messages: messages as UIMessage[] }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error, JSON.stringify(messages)).toBeInstanceOf(EngramError)
    expect((error as EngramError).code).toBe('INVALID_ARGUMENT')
    expect((error as EngramError).message).toMatch(cause)
    expect((error as EngramError).message).toMatch(/nothing was saved/)
    // The cause names fields, never the values sent.
    expect((error as EngramError).message).not.toContain('sk-secret')
  }
  expect((await store.getMessages('c')).length).toBe(before)
  expect(await chats.loadChat('c')).toEqual(good)
})
