import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EngramError, openStore } from '../src/index.ts'
import { driversUnderTest, tempDir, withStore } from './helpers.ts'

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'opened',
    (e: unknown) => (e instanceof EngramError ? `${e.code}: ${e.message}` : String(e)),
  )

for (const driver of driversUnderTest()) {
  describe(`the readOnly option on ${driver}`, () => {
    const dir = tempDir(`engram-readonly-${driver}-`)

    it('opens an existing file read-only (reads and search work, writes fail) and refuses a missing one, creating nothing', async () => {
      const path = join(dir, 'ro.db')
      const id = await withStore({ url: path, driver }, async (store) => {
        const s = await store.createSession({ source: 'cli' })
        await store.appendMessage(s.id, { role: 'user', content: 'read me later' })
        return s.id
      })
      await withStore({ url: path, driver, readOnly: true }, async (store) => {
        expect((await store.getMessages(id)).map((m) => m.content)).toEqual(['read me later'])
        expect((await store.search('later')).length).toBe(1)
        expect(await codeOf(store.createSession({ source: 'cli' }))).toMatch(/^DATABASE_READONLY/)
      })
      const missing = join(dir, 'sub', 'missing.db')
      expect(await codeOf(openStore({ url: missing, driver, readOnly: true }))).toBe(
        `DATABASE_PATH: The database ${missing} does not exist, and a read-only store does not create it. Check the path, or create the database by opening it once without read-only.`,
      )
      expect(existsSync(join(dir, 'sub'))).toBe(false)
    })
  })
}

it('refuses to open a remote libSQL url read-only, naming what can be', async () => {
  expect(await codeOf(openStore({ url: 'libsql://db.example.com?authToken=x', readOnly: true }))).toMatch(
    /^INVALID_ARGUMENT: A remote libSQL database \(libsql:\/\/db\.example\.com\) cannot be opened read-only/,
  )
})
