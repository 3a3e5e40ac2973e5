import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EngramError, openStore } from '../src/index.ts'
import { driversUnderTest, tempDir, withStore } from './helpers.ts'

async function expectPathError(url: string, driver: string, message: RegExp): Promise<void> {
  const error = await openStore({ url, driver: driver as never }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(EngramError)
  expect((error as EngramError).code).toBe('DATABASE_PATH')
  expect((error as EngramError).message).toMatch(message)
}

for (const driver of driversUnderTest()) {
  describe(`database urls on ${driver}`, () => {
    const dir = tempDir(`engram-urls-${driver}-`)

    it('opens file:…?mode=ro read-only: reads work, writes fail, no file named after the query', async () => {
      const path = join(dir, 'q.db')
      const id = await withStore({ url: path, driver }, async (store) => {
        const s = await store.createSession({ source: 'cli' })
        await store.appendMessage(s.id, { role: 'user', content: 'read me later' })
        return s.id
      })
      await withStore({ url: `file:${path}?mode=ro`, driver }, async (store) => {
        expect((await store.getMessages(id)).map((m) => m.content)).toEqual(['read me later'])
        expect((await store.search('later')).length).toBe(1)
        const error = await store.createSession({ source: 'cli' }).catch((e: unknown) => e)
        expect((error as EngramError).code).toBe('DATABASE_READONLY')
      })
      expect(readdirSync(dir).filter((f) => f.includes('?'))).toEqual([])
    })

    it('refuses mode=ro and mode=rw on a missing file and creates nothing', async () => {
      for (const mode of ['ro', 'rw']) {
        const path = join(dir, `missing-${mode}`, 'x.db')
        await expectPathError(
          `file:${path}?mode=${mode}`,
          driver,
          new RegExp(`does not exist, and mode=${mode}`),
        )
        expect(existsSync(join(dir, `missing-${mode}`))).toBe(false)
      }
    })

    it('decodes percent-escapes: file:///…/u%20v.db is the file "u v.db"', async () => {
      await withStore({ url: `file://${dir}/u%20v.db`, driver }, async (store) => {
        await store.createSession({ source: 'cli' })
      })
      expect(existsSync(join(dir, 'u v.db'))).toBe(true)
      expect(existsSync(join(dir, 'u%20v.db'))).toBe(false)
      await withStore({ url: `file://localhost${dir}/u%20v.db?mode=rw`, driver }, async (store) => {
        expect((await store.listSessions()).length).toBe(1)
      })
    })

    it('refuses unknown query parameters, other hosts and malformed escapes, naming them', async () => {
      await expectPathError(
        `file:${dir}/c.db?cache=shared`,
        driver,
        /query parameter "cache".*mode=ro\|rw\|rwc/,
      )
      await expectPathError(`file:${dir}/c.db?mode=memory`, driver, /mode=memory\. Use mode=ro/)
      await expectPathError(`file://server${dir}/c.db`, driver, /names the host "server"/)
      await expectPathError(`file:${dir}/c%zz.db`, driver, /malformed percent-escape/)
      expect(readdirSync(dir).filter((f) => f.startsWith('c'))).toEqual([])
    })
  })
}

describe('home folder in database paths', () => {
  const home = tempDir('engram-home-')
  const cwd = tempDir('engram-cwd-')
  let saved: { home: string | undefined; cwd: string }
  beforeEach(() => {
    saved = { home: process.env.HOME, cwd: process.cwd() }
    process.env.HOME = home
    process.chdir(cwd)
  })
  afterEach(() => {
    process.env.HOME = saved.home
    process.chdir(saved.cwd)
  })

  it('expands ~/ to the home folder and makes no folder named ~', async () => {
    await withStore({ url: '~/engram/a.db' }, async (store) => {
      await store.createSession({ source: 'cli' })
    })
    expect(
      readFileSync(join(home, 'engram', 'a.db'))
        .subarray(0, 15)
        .toString(),
    ).toBe('SQLite format 3')
    expect(existsSync(join(cwd, '~'))).toBe(false)
  })

  it('refuses ~name/ rather than making a folder of that name', async () => {
    await expectPathError('~bob/a.db', 'better-sqlite3', /~name, which Engram does not expand/)
    expect(readdirSync(cwd)).toEqual([])
  })
})
