import type { Store } from '@engram/core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { EngramStore } from '../src/index.ts'
import { ENGINES, engineUnderTest } from './engines.ts'
import { ConceptEmbeddings, FAKE_DIMS } from './fake-embeddings.ts'

describe.each(ENGINES)('EngramStore on %s', (name) => {
  const engine = engineUnderTest(name)
  let store: Store
  beforeAll(async () => {
    await engine.start()
    store = await engine.open('store')
  })
  afterAll(async () => {
    await store?.close()
    await engine.stop()
  })

  it('puts, gets, updates (keeping createdAt) and deletes namespaced JSON items', async () => {
    const memory = new EngramStore({ store, owner: 'crud' })
    await memory.put(['users', 'u1', 'prefs'], 'theme', { theme: 'dark', sizes: [1, 2] })
    const first = await memory.get(['users', 'u1', 'prefs'], 'theme')
    expect(first).toMatchObject({
      namespace: ['users', 'u1', 'prefs'],
      key: 'theme',
      value: { theme: 'dark', sizes: [1, 2] },
    })
    await memory.put(['users', 'u1', 'prefs'], 'theme', { theme: 'light' })
    const second = await memory.get(['users', 'u1', 'prefs'], 'theme')
    expect(second?.value).toEqual({ theme: 'light' })
    expect(second?.createdAt).toEqual(first?.createdAt)
    expect(second?.updatedAt.getTime()).toBeGreaterThanOrEqual(first?.updatedAt.getTime() ?? 0)
    await memory.delete(['users', 'u1', 'prefs'], 'theme')
    expect(await memory.get(['users', 'u1', 'prefs'], 'theme')).toBeNull()
    await expect(memory.put(['bad.label'], 'k', {})).rejects.toThrow(/period|\./)
  })

  it('searches under a namespace prefix with filter operators, limit and offset', async () => {
    const memory = new EngramStore({ store, owner: 'filters' })
    for (let i = 0; i < 12; i++) {
      await memory.put(['docs', i % 2 === 0 ? 'even' : 'odd'], `d${i}`, {
        n: i,
        tag: i % 3 === 0 ? 'three' : 'other',
        nested: { n: i },
      })
    }
    await memory.put(['docsx'], 'outside', { n: 100 })
    const all = await memory.search(['docs'], { limit: 50 })
    expect(all.map((item) => item.key).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `d${i}`).sort())
    const even = await memory.search(['docs', 'even'], { limit: 50 })
    expect(even.every((item) => item.value.n % 2 === 0)).toBe(true)
    const ranged = await memory.search(['docs'], {
      filter: { n: { $gte: 3, $lt: 7 }, tag: { $ne: 'three' } },
      limit: 50,
    })
    expect(ranged.map((item) => item.value.n).sort()).toEqual([4, 5])
    const listed = await memory.search(['docs'], {
      filter: { n: { $in: [1, 2, 11] }, 'nested.n': { $nin: [2] } },
      limit: 50,
    })
    expect(listed.map((item) => item.value.n).sort((a, b) => a - b)).toEqual([1, 11])
    const equal = await memory.search(['docs'], { filter: { tag: 'three' }, limit: 2, offset: 1 })
    expect(equal).toHaveLength(2)
    const threes = await memory.search(['docs'], { filter: { tag: 'three' }, limit: 50 })
    expect(equal.map((item) => item.key)).toEqual(threes.slice(1, 3).map((item) => item.key))
    const paged = await memory.search(['docs'], { limit: 5, offset: 10 })
    expect(paged).toHaveLength(2)
  })

  it('lists namespaces by prefix, suffix (with wildcards) and maxDepth, with limit and offset', async () => {
    const memory = new EngramStore({ store, owner: 'namespaces' })
    for (const ns of [['a', 'b', 'c'], ['a', 'b', 'd'], ['a', 'x', 'c'], ['z']])
      await memory.put(ns, 'k', { v: 1 })
    expect(await memory.listNamespaces()).toEqual([['a', 'b', 'c'], ['a', 'b', 'd'], ['a', 'x', 'c'], ['z']])
    expect(await memory.listNamespaces({ prefix: ['a', 'b'] })).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'd'],
    ])
    expect(await memory.listNamespaces({ suffix: ['c'] })).toEqual([
      ['a', 'b', 'c'],
      ['a', 'x', 'c'],
    ])
    expect(await memory.listNamespaces({ prefix: ['a', '*', 'c'] })).toEqual([
      ['a', 'b', 'c'],
      ['a', 'x', 'c'],
    ])
    expect(await memory.listNamespaces({ maxDepth: 2 })).toEqual([['a', 'b'], ['a', 'x'], ['z']])
    expect(await memory.listNamespaces({ limit: 2, offset: 1 })).toEqual([
      ['a', 'b', 'd'],
      ['a', 'x', 'c'],
    ])
  })

  it("answers a query with Engram's ranked full-text search, Chinese included", async () => {
    const memory = new EngramStore({ store, owner: 'query', fields: ['text'] })
    await memory.put(['notes'], 'deploy', { text: 'We deploy the backend with scripts/deploy.sh on Fridays' })
    await memory.put(['notes'], 'deploy-twice', {
      text: 'deploy deploy: the deploy checklist for every deploy',
    })
    await memory.put(['notes'], 'lunch', { text: 'Lunch is at noon' })
    await memory.put(['notes'], 'cn', { text: '我们每周五部署后端服务' })
    await memory.put(['notes'], 'unindexed', { text: 'deploy' }, false)
    await memory.put(['notes'], 'nul', { text: 'a NUL\0between words' })
    expect((await memory.get(['notes'], 'nul'))?.value).toEqual({ text: 'a NUL\0between words' })
    expect((await memory.search(['notes'], { query: 'between' })).map((hit) => hit.key)).toEqual(['nul'])
    const hits = await memory.search(['notes'], { query: 'deploy' })
    expect(hits.map((hit) => hit.key)).toEqual(['deploy-twice', 'deploy'])
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Number.POSITIVE_INFINITY)
    expect((await memory.search(['notes'], { query: '后端' })).map((hit) => hit.key)).toEqual(['cn'])
    expect(await memory.search(['notes'], { query: '前端' })).toEqual([])
    expect(
      (await memory.search(['notes'], { query: 'deploy', filter: { text: { $ne: 'x' } }, offset: 1 })).map(
        (h) => h.key,
      ),
    ).toEqual(['deploy'])
  })

  it("never returns one owner's items to another, whatever the namespace", async () => {
    const ann = new EngramStore({ store, owner: 'ann' })
    const bob = new EngramStore({ store, owner: 'bob' })
    await ann.put(['memories'], 'secret', { text: 'ann keeps the deploy key' })
    await bob.put(['memories'], 'other', { text: 'bob deploys on mondays' })
    expect(await bob.get(['memories'], 'secret')).toBeNull()
    expect((await bob.search([], { limit: 100 })).map((item) => item.key)).toEqual(['other'])
    expect((await bob.search(['memories'], { query: 'deploy key ann' })).map((item) => item.key)).toEqual([
      'other',
    ])
    expect(await bob.listNamespaces()).toEqual([['memories']])
    await bob.delete(['memories'], 'secret')
    expect((await ann.get(['memories'], 'secret'))?.value).toEqual({ text: 'ann keeps the deploy key' })
  })

  it('expires items after their ttl, refreshes the ttl on read, and sweeps them', async () => {
    const memory = new EngramStore({ store, owner: 'ttl', ttl: { defaultTtl: 1 } })
    const start = Date.now()
    vi.useFakeTimers({ toFake: ['Date'], now: start })
    try {
      await memory.put(['t'], 'read', { v: 1 })
      await memory.put(['t'], 'unread', { v: 2 })
      await memory.put(['t'], 'forever', { v: 3 }, undefined, { ttl: null })
      vi.setSystemTime(start + 45_000)
      expect(await memory.get(['t'], 'read')).not.toBeNull() // refreshed: now lives until start + 105 s
      vi.setSystemTime(start + 90_000)
      expect(await memory.get(['t'], 'unread')).toBeNull()
      expect((await memory.search(['t'])).map((item) => item.key).sort()).toEqual(['forever', 'read'])
      vi.setSystemTime(start + 200_000)
      expect((await memory.search(['t'])).map((item) => item.key)).toEqual(['forever'])
      expect(await memory.sweep()).toBeGreaterThanOrEqual(2)
      expect(await memory.listNamespaces()).toEqual([['t']])
    } finally {
      vi.useRealTimers()
    }
  })

  it('fuses the full-text ranking with vector similarity when an index has embeddings', async () => {
    const embeddings = new ConceptEmbeddings()
    const memory = new EngramStore({
      store,
      owner: 'vectors',
      index: { dims: FAKE_DIMS, embeddings, fields: ['text'] },
    })
    await memory.put(['garage'], 'both', { text: 'my car needs a new car battery' })
    await memory.put(['garage'], 'synonym', { text: 'the automobile is in the shop' })
    await memory.put(['garage'], 'words', { text: 'a car of thought, next to the puppy' })
    await memory.put(['garage'], 'pets', { text: 'the puppy sleeps' })
    await memory.put(['elsewhere'], 'far', { text: 'car car car' })
    const hits = await memory.search(['garage'], { query: 'car', limit: 3 })
    // full text (BM25): both, words; vectors (the vehicle concept): synonym, both, words, pets
    expect(hits.map((hit) => hit.key)).toEqual(['both', 'words', 'synonym'])
    expect(hits[0]?.score).toBeCloseTo(1 / 61 + 1 / 62, 8)
    expect(hits[2]?.score).toBeCloseTo(1 / 61, 8)
    // a query with no word in common is answered by the vectors alone
    expect((await memory.search(['garage'], { query: 'truck', limit: 1 })).map((hit) => hit.key)).toEqual([
      'synonym',
    ])
    expect(embeddings.seen).toContain('the automobile is in the shop')
    await expect(
      new EngramStore({ store, owner: 'vectors', index: { dims: 3, embeddings } }).put(['x'], 'k', {
        text: 'car',
      }),
    ).rejects.toThrow(/index.dims/)
  })
})
