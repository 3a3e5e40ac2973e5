import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dataFolder, engram, engramJson, type Json, tempDir, withStore } from './helpers.ts'

describe('read-only commands on a path that does not exist', () => {
  it.each([['sessions'], ['show', 'latest'], ['search', 'deploy'], ['usage'], ['export', 'latest']])(
    '%s says so and creates nothing',
    async (...args) => {
      const dir = tempDir()
      const db = join(dir, 'nested', 'missing.db')
      const result = await engram([...args, '--db', db], { cwd: dir })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`engram: There is no database at ${db}. Check --db`)
      expect(readdirSync(dir)).toEqual([])
    },
  )

  it('doctor reports it as a failed check and creates nothing', async () => {
    const dir = tempDir()
    const db = join(dir, 'missing.db')
    const report = await engram(['doctor', '--json', '--db', db], { cwd: dir })
    expect(report.code).toBe(1)
    const database = JSON.parse(report.stdout).checks.find((c: Json) => c.name === 'database')
    expect(database).toMatchObject({ ok: false, detail: `there is no database at ${db}` })
    expect(existsSync(db)).toBe(false)
  })

  it('a bad --limit is refused before anything is opened; a huge one names --limit', async () => {
    const dir = tempDir()
    for (const limit of ['-1', '0', '1e9', '2.5']) {
      const result = await engram(['sessions', '--limit', limit, '--db', join(dir, 'sub', 'x.db')], {
        cwd: dir,
      })
      expect([limit, result.code]).toEqual([limit, 2])
      expect(result.stderr).toBe(`engram: --limit must be a whole number from 1 to 1000 (got "${limit}").\n`)
    }
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('file errors name the cause and the fix', () => {
  it('export -o <folder> refuses and leaves no temporary file', async () => {
    const dir = tempDir()
    const db = join(dir, 'e.db')
    await withStore(db, async (store) => {
      await store.createSession({ source: 'cli' })
    })
    const out = join(dir, 'out')
    mkdirSync(out)
    const result = await engram(['export', 'latest', '-o', out, '--db', db], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      `engram: ${out} is a folder. Give --output a file name, e.g. ${join(out, 'session.json')}.\n`,
    )
    expect(readdirSync(out)).toEqual([])
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('import of a missing file, init into new folders and init over a folder', async () => {
    const dir = tempDir()
    const missing = await engram(['import', join(dir, 'missing.json'), '--db', join(dir, 'i.db')], {
      cwd: dir,
    })
    expect(missing.stderr).toBe(
      `engram: Cannot read ${join(dir, 'missing.json')} (no such file or folder). Give the path of a file written by \`engram export\`.\n`,
    )
    const nested = await engramJson<{ written: string }>(['init', 'sub/dir/x.toml'], { cwd: dir })
    expect(nested.written).toBe(join(dir, 'sub', 'dir', 'x.toml'))
    expect(readFileSync(nested.written, 'utf8')).toContain('[hermes.storage]')
    const folder = await engram(['init', 'sub', '--force'], { cwd: dir })
    expect(folder.code).toBe(1)
    expect(folder.stderr).toBe(
      `engram: ${join(dir, 'sub')} is a folder. Name the file to write, e.g. \`engram init sub/engram.toml\`.\n`,
    )
  })

  it('--db file:ok.db is printed as given', async () => {
    const dir = tempDir()
    expect(await engramJson(['migrate', '--db', 'file:ok.db'], { cwd: dir })).toMatchObject({
      migrated: true,
      database: 'file:ok.db',
    })
  })
})

describe('the demo and chat a new user meets', () => {
  it('demo --json prints one JSON document; its Explore command works as printed from another folder', async () => {
    const dir = tempDir()
    const db = join(dir, 'demo', 'engram.db')
    const json = await engram(['demo', '--db', db, '--json'], { cwd: dir })
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject({ database: db })
    const human = await engram(['demo', '--db', join(dir, 'again', 'engram.db')], { cwd: dir })
    const explore = /engram chat --db (\S+) --source demo --resume latest/.exec(human.stdout)
    expect(explore?.[1]).toBe(join(dir, 'again', 'engram.db'))
    const elsewhere = tempDir()
    const chat = await engram(
      ['chat', '--db', explore?.[1] as string, '--source', 'demo', '--resume', 'latest'],
      {
        cwd: elsewhere,
        input: 'Which framework does the API backend use?\n',
      },
    )
    expect(chat.code).toBe(0)
    expect(chat.stderr).toMatch(/Resumed session [0-9a-f]{8}/)
    expect(chat.stdout).toContain('From memory: the API backend uses FastAPI')
    expect(readdirSync(elsewhere)).toEqual([])
  })

  it('--db moves the memory files beside the database', async () => {
    const dir = tempDir()
    await engramJson(['memory', 'add', 'the first one', '--target', 'memory', '--db', 'one/e.db'], {
      cwd: dir,
    })
    expect(readFileSync(join(dir, 'one', 'MEMORY.md'), 'utf8')).toContain('the first one')
    const other = await engramJson<{ files: { entries: string[] }[] }>(['memory', '--db', 'two/e.db'], {
      cwd: dir,
    })
    expect(other.files.flatMap((f) => f.entries)).toEqual([])
    expect(existsSync(dataFolder(dir))).toBe(false)
  })

  it('chat --json is refused; a chat ends its session with the reason, and the hint keeps --db and --source', async () => {
    const dir = tempDir()
    const refused = await engram(['chat', '--json'], { cwd: dir })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('chat has no --json output')
    const db = join(dir, 'c.db')
    const eof = await engram(['chat', '--db', db, '--source', 'tg'], { cwd: dir, input: 'hello\n' })
    expect(eof.stderr).toContain(`Continue with \`engram chat --db ${db} --source tg --resume latest\`.`)
    await engram(['chat', '--db', db, '--source', 'tg'], {
      cwd: dir,
      input: 'hello again\n/exit\nnever read\n',
    })
    await withStore(db, async (store) => {
      const [second, first] = await store.listSessions()
      expect(first?.endReason).toBe('end_of_input')
      expect(second?.endReason).toBe('user_exit')
      expect((await store.getMessages(second?.id as string)).some((m) => m.content === 'never read')).toBe(
        false,
      )
    })
  })

  it('sessions says which filter matched nothing, uses the terminal width and keeps short ids distinct', async () => {
    const dir = tempDir()
    const db = join(dir, 's.db')
    const title = `A long title ${'x'.repeat(80)} END`
    await withStore(db, async (store) => {
      await store.createSession({ id: '20260301_093000_a1b2c3', source: 'hermes', title })
      await store.createSession({ id: '20260301_101500_d4e5f6', source: 'hermes', title: 'second' })
    })
    const none = await engram(['sessions', '--source', 'demo', '--db', db], { cwd: dir })
    expect(none.stdout).toBe('No sessions of source "demo". List them all with `engram sessions`.\n')
    const wide = await engram(['sessions', '--db', db], { cwd: dir, columns: 200 })
    expect(wide.stdout).toContain('END')
    expect(wide.stdout).toMatch(/^20260301_0 /m)
    expect(wide.stdout).toMatch(/^20260301_1 /m)
    const narrow = await engram(['sessions', '--db', db], { cwd: dir, columns: 80 })
    expect(narrow.stdout).not.toContain('END')
    expect(
      Math.max(
        ...narrow.stdout
          .trimEnd()
          .split('\n')
          .map((line) => line.length),
      ),
    ).toBeLessThanOrEqual(80)
    const shown = await engramJson<Record<string, Json>>(['show', '20260301_1', '--db', db], { cwd: dir })
    expect(shown.session.id).toBe('20260301_101500_d4e5f6')
  })

  it('unknown commands suggest the nearest; --help shows examples and the environment read', async () => {
    const typo = await engram(['sesions'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain("unknown command 'sesions' (Did you mean sessions?)")
    const help = await engram(['--help'])
    expect(help.stdout).toContain('Examples:')
    expect(help.stdout).toMatch(/Environment:[\s\S]*OPENAI_API_KEY[\s\S]*ENGRAM_DB_URL/)
  })

  it('eval refuses a window below the minimum', async () => {
    const result = await engram(['eval', '--window', '500'], { cwd: tempDir() })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--window must be a whole number of at least 2000 (got "500")')
  })
})

describe('memory messages are written for a person', () => {
  it('a replace that matches nothing and an unparseable file name the file and the command to run', async () => {
    const dir = tempDir()
    await engramJson(['memory', 'add', 'CI runs on Buildkite', '--target', 'memory'], { cwd: dir })
    const miss = await engram(['memory', 'replace', 'GitHub', 'x', '--target', 'memory'], { cwd: dir })
    expect(miss.stderr).toBe(
      'engram: No entry in MEMORY.md contains "GitHub". See the entries with `engram memory show --target memory` and give part of one as it is written.\n',
    )
    writeFileSync(join(dataFolder(dir), 'MEMORY.md'), '<<<<<<< HEAD\nCI runs on Buildkite\n')
    const show = await engram(['memory', 'show'], { cwd: dir })
    expect(show.code).toBe(1)
    expect(show.stderr).toContain(
      `engram: ${join(dataFolder(dir), 'MEMORY.md')} does not parse, so it was read as nothing`,
    )
    expect(show.stderr).not.toMatch(/Nothing was written|retry|Ask the user/)
  })
})
