import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { loadConfig } from '@engram/agent'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closedPort } from '../../../packages/agent/test/servers/http.ts'
import { engram, engramJson, type Json, seedConversation, tempDir, withStore } from './helpers.ts'

interface Check {
  name: string
  ok: boolean
  detail: string
  fix?: string
}
interface DoctorReport {
  ok: boolean
  checks: Check[]
  config: Record<string, Record<string, unknown>>
}

const checkNamed = (report: DoctorReport, name: string) => report.checks.find((c) => c.name === name) as Check

describe('engram doctor', () => {
  it('passes on a healthy setup and prints the effective config with secrets masked', async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, 'engram.toml'), '[nudge]\ninterval_tasks = 10\n')
    const db = join(cwd, 'ok.db')
    await seedConversation(db)
    const { stdout, code } = await engram(['doctor', '--db', db], {
      cwd,
      env: { ENGRAM_DB_AUTH_TOKEN: 'tok-secret-123' },
    })
    expect(code).toBe(0)
    for (const name of ['config', 'database', 'integrity', 'search index', 'MEMORY.md', 'USER.md', 'model']) {
      expect(stdout).toMatch(new RegExp(`^✓ ${name}: `, 'm'))
    }
    expect(stdout).toMatch(/^✓ integrity: PRAGMA integrity_check: ok$/m)
    expect(stdout).toContain('"interval_tasks": 10')
    expect(stdout).toContain('"auth_token": "(set, hidden)"')
    expect(stdout).not.toContain('tok-secret-123')
  })

  it('reports a broken database with ✗ and the fix, exit 1', async () => {
    const cwd = tempDir()
    const broken = join(cwd, 'broken.db')
    writeFileSync(broken, 'SQLite format 3\u0000 but then garbage '.repeat(200))
    const result = await engram(['doctor', '--db', broken], { cwd })
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /^✗ database: .*not an SQLite database.*\. Point the store at a new path or at an Engram database\.$/m,
    )
    expect(result.stdout).toMatch(/^✓ config: /m)
    const json = JSON.parse(
      (await engram(['doctor', '--db', broken, '--json'], { cwd })).stdout,
    ) as DoctorReport
    expect(json.ok).toBe(false)
    expect(checkNamed(json, 'database').ok).toBe(false)
  })

  it('reports a bad config key in one line and still checks the rest with the defaults', async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, 'engram.toml'), '[hermes.storage]\nbusy_timout = 1000\n')
    await withStore(join(cwd, 'x.db'), async () => undefined)
    const report = JSON.parse(
      (await engram(['doctor', '--json', '--db', join(cwd, 'x.db')], { cwd })).stdout,
    ) as DoctorReport
    expect(report.ok).toBe(false)
    expect(checkNamed(report, 'config')).toMatchObject({
      ok: false,
      detail: expect.stringContaining(
        'hermes.storage.busy_timout is not a known key (known: db_path, journal_mode',
      ),
      fix: 'correct that key, or write a fresh file with `engram init`',
    })
    expect(checkNamed(report, 'database').ok).toBe(true)
    const human = await engram(['doctor', '--db', join(cwd, 'x.db')], { cwd })
    expect(human.code).toBe(1)
    expect(human.stdout).toMatch(
      /^✗ config: Invalid configuration in .*engram\.toml: hermes\.storage\.busy_timout is not a known key/m,
    )
    expect(human.stdout).toMatch(/^ {2}fix: correct that key, or write a fresh file with `engram init`$/m)
  })

  it('finds a search index that disagrees with its table; engram reindex repairs it', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'fts.db')
    await seedConversation(db)
    const raw = new Database(db)
    raw.prepare("INSERT INTO messages_fts(rowid, body) VALUES (999, 'phantom words')").run()
    raw.close()
    const before = JSON.parse(
      (await engram(['doctor', '--json', '--db', db], { cwd })).stdout,
    ) as DoctorReport
    expect(checkNamed(before, 'search index')).toMatchObject({ ok: false, fix: 'run `engram reindex`' })
    const reindexed = await engramJson<Record<string, unknown>>(['reindex', '--db', db], { cwd })
    expect(reindexed).toMatchObject({ rebuilt: true, searchIndex: { messages: 'ok', episodes: 'ok' } })
    const after = JSON.parse((await engram(['doctor', '--json', '--db', db], { cwd })).stdout) as DoctorReport
    expect(checkNamed(after, 'search index').ok).toBe(true)
  })

  describe('with a provider configured', () => {
    let server: Server
    let base: string
    beforeAll(async () => {
      // Speaks the chat completions wire format; /html/ answers a 200 web page, as a portal does.
      server = createServer((req, res) => {
        if (req.url?.startsWith('/html/')) {
          res.writeHead(200, { 'content-type': 'text/html' })
          return res.end('<!DOCTYPE html><html><title>Sign in</title></html>')
        }
        const status = req.headers.authorization === 'Bearer sk-good' ? 200 : 401
        res.writeHead(req.url === '/v1/chat/completions' ? status : 404, {
          'content-type': 'application/json',
        })
        res.end(
          status === 200
            ? JSON.stringify({
                id: 'c',
                object: 'chat.completion',
                created: 1,
                model: 'm',
                choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }],
                usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
              })
            : '{"error":{"message":"bad key"}}',
        )
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    afterAll(() => server.close())

    it('checks that the endpoint answers, and names the variable of a rejected key without printing it', async () => {
      const cwd = tempDir()
      const db = join(cwd, 'p.db')
      const good = JSON.parse(
        (
          await engram(['doctor', '--json', '--db', db], {
            cwd,
            env: { OPENAI_API_KEY: 'sk-good', OPENAI_BASE_URL: `${base}/v1` },
          })
        ).stdout,
      ) as DoctorReport
      expect(checkNamed(good, 'model')).toMatchObject({
        ok: true,
        detail: expect.stringContaining('key from OPENAI_API_KEY'),
      })
      const bad = await engram(['doctor', '--db', db], {
        cwd,
        env: { OPENAI_API_KEY: 'sk-wrong-key-999', OPENAI_BASE_URL: `${base}/v1` },
      })
      expect(bad.code).toBe(1)
      expect(bad.stdout).toMatch(
        /^✗ model: openai: .* rejected the API key \(401: .*read from OPENAI_API_KEY/m,
      )
      expect(bad.stdout + bad.stderr).not.toContain('sk-wrong-key-999')
      const path = await engram(['doctor', '--json', '--db', db], {
        cwd,
        env: { OPENAI_API_KEY: 'sk-good', OPENAI_BASE_URL: `${base}/api` },
      })
      expect(checkNamed(JSON.parse(path.stdout), 'model')).toMatchObject({
        ok: false,
        detail: expect.stringContaining('answered 404'),
      })
    })

    it('checks through the chat code: a 200 web page and a dead HTTPS_PROXY are failures', async () => {
      const cwd = tempDir()
      const db = join(cwd, 'p.db')
      const html = JSON.parse(
        (
          await engram(['doctor', '--json', '--db', db], {
            cwd,
            env: { OPENAI_API_KEY: 'sk-good', OPENAI_BASE_URL: `${base}/html/v1` },
          })
        ).stdout,
      ) as DoctorReport
      expect(checkNamed(html, 'model')).toMatchObject({
        ok: false,
        detail: expect.stringContaining('answered 200 but'),
      })
      const proxy = await engram(['doctor', '--json', '--db', db], {
        cwd,
        env: {
          OPENAI_API_KEY: 'sk-good',
          OPENAI_BASE_URL: 'https://api.example.invalid/v1',
          HTTPS_PROXY: `http://127.0.0.1:${await closedPort()}`,
        },
      })
      expect(checkNamed(JSON.parse(proxy.stdout), 'model')).toMatchObject({
        ok: false,
        detail: expect.stringContaining('local proxy failed'),
      })
    })
  })
})

describe('engram prune, migrate and init', () => {
  it('prune --dry-run lists ended sessions older than N days; prune deletes them and keeps the open child', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'prune.db')
    const ids = await seedConversation(db)
    // The parent ended "now"; make it look 40 days old.
    const raw = new Database(db)
    raw.prepare('UPDATE sessions SET ended_at = ended_at - 40 * 86400000 WHERE id = ?').run(ids.parent)
    raw.close()
    const dry = await engramJson<Record<string, Json>>([
      'prune',
      '--older-than',
      '30',
      '--dry-run',
      '--db',
      db,
    ])
    expect(dry).toMatchObject({ dryRun: true, olderThanDays: 30, count: 1 })
    expect(dry.sessions[0].id).toBe(ids.parent)
    const none = await engramJson<Record<string, unknown>>([
      'prune',
      '--older-than',
      '60',
      '--dry-run',
      '--db',
      db,
    ])
    expect(none).toMatchObject({ count: 0 })
    // In words: singular and plural right, and an empty preview says so instead of ending on a colon.
    const noneHuman = await engram(['prune', '--older-than', '60', '--dry-run', '--db', db])
    expect(noneHuman.stdout).toBe('No session ended more than 60 days ago: nothing would be deleted.\n')
    const oneHuman = await engram(['prune', '--older-than', '1', '--dry-run', '--db', db])
    expect(oneHuman.stdout).toMatch(/^Would delete 1 session that ended more than 1 day ago:\nID +ENDED/)
    const pruned = await engramJson<Record<string, unknown>>([
      'prune',
      '--older-than',
      '30',
      '--vacuum',
      '--db',
      db,
    ])
    expect(pruned).toMatchObject({ dryRun: false, count: 1, vacuumed: true })
    await withStore(db, async (store) => {
      expect(await store.getSession(ids.parent)).toBeNull()
      expect((await store.getSession(ids.child))?.parentSessionId).toBeNull()
    })
    const missing = await engram(['prune', '--db', db])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("required option '--older-than <days>' not specified")
  })

  it('migrate creates the database; init writes a commented config that loads to the defaults', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'nested', 'new.db')
    const created = await engramJson<Json>(['migrate', '--db', db])
    expect(created).toEqual({
      migrated: true,
      database: db,
      schemaVersion: { before: 0, after: expect.any(Number) },
    })
    expect(created.schemaVersion.after).toBeGreaterThan(0)
    expect(existsSync(db)).toBe(true)
    const reopened = await engram(['migrate', '--db', db])
    expect(reopened.stdout).toBe(
      `The database ${db} is up to date (schema version ${created.schemaVersion.after}).\n`,
    )
    const written = await engramJson<{ written: string }>(['init'], { cwd })
    expect(written.written).toBe(join(cwd, 'engram.toml'))
    const text = readFileSync(written.written, 'utf8')
    expect(text).toContain('[hermes.storage]')
    expect(text).toContain('trigger_ratio = 0.75')
    const fromFile = loadConfig({ cwd, env: {} })
    const defaults = loadConfig({ cwd, env: {}, file: null })
    expect(fromFile.origin?.file).toBe(written.written)
    expect({ ...fromFile, storage: null, origin: null }).toEqual({ ...defaults, storage: null, origin: null })
    expect(fromFile.storage).toEqual({
      ...defaults.storage,
      journalMode: 'WAL',
      synchronous: 'NORMAL',
      busyTimeout: 1000,
    })
    const again = await engram(['init'], { cwd })
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/engram\.toml already exists\. Edit it, or pass --force to replace it\./)
    expect((await engram(['init', '--force'], { cwd })).code).toBe(0)
  })
})
