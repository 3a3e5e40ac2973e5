import { closeSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { engram, engramJson, type Json, seedConversation, tempDir, withStore } from './helpers.ts'

const dir = tempDir()
const source = join(dir, 'source.db')
let ids: { parent: string; child: string }

beforeAll(async () => {
  ids = await seedConversation(source)
})

/** What a round trip must keep: everything but an episode's own id, creation time and hit statistics. */
function comparable(document: { sessions: Record<string, Json>[] }) {
  return document.sessions.map(({ session, messages, episodes, usage }) => ({
    session,
    messages,
    episodes: episodes.map((e: Record<string, unknown>) => ({
      ...e,
      id: undefined,
      createdAt: undefined,
      lastHitAt: undefined,
      hitCount: undefined,
    })),
    usage,
  }))
}

describe.each(['json', 'jsonl', 'md'])('engram export --format %s, then engram import', (format) => {
  it('loses nothing: tool calls, lineage, system prompt, episodes and usage; a second import adds nothing', async () => {
    const file = join(dir, `export.${format}`)
    const written = await engramJson<Record<string, unknown>>([
      'export',
      ids.child.slice(0, 6),
      '--format',
      format,
      '-o',
      file,
      '--db',
      source,
    ])
    expect(written).toEqual({ file, format, sessions: 2, messages: 6 })
    const target = join(dir, `target-${format}.db`)
    const first = await engramJson<Record<string, unknown>>(['import', file, '--db', target])
    expect(first).toMatchObject({ imported: 2, skipped: 0, messages: 6, warnings: [] })
    const second = await engramJson<Record<string, unknown>>(['import', file, '--db', target])
    expect(second).toMatchObject({ imported: 0, skipped: 2, messages: 0 })

    const original = await engram(['export', ids.parent, '--format', 'json', '--db', source])
    const copy = await engram(['export', ids.parent, '--format', 'json', '--db', target])
    const before = JSON.parse(original.stdout)
    const after = JSON.parse(copy.stdout)
    expect(comparable(after)).toEqual(comparable(before))
    expect(after.sessions[1].session.parentSessionId).toBe(ids.parent)
    expect(after.sessions[0].session.systemPrompt).toBe('You are Engram.\nToday is Tuesday.')
    expect(after.sessions[0].messages[1].tool_calls[0].function.arguments).toBe(
      '{"action":"add","content":"uses FastAPI -->"}',
    )
    await withStore(target, async (store) => {
      expect((await store.usage()).byPurpose.compression?.inputTokens).toBe(300)
      expect(await store.resolveTip(ids.parent)).toBe(ids.child)
      expect((await store.search('后端')).length).toBeGreaterThan(0)
    })
  })
})

describe('export and import formats', () => {
  it('writes a readable Markdown transcript with the exact data in comments', async () => {
    const { stdout } = await engram(['export', ids.parent, '--format', 'md', '--db', source])
    expect(stdout).toContain('## Session')
    expect(stdout).toContain('### user · ')
    expect(stdout).toContain('我们用 FastAPI 做后端')
    expect(stdout).toContain('````text\nNoted: ```FastAPI``` is the backend.\n````')
    expect(stdout).not.toMatch(/uses FastAPI -->/)
    expect(stdout).toContain('- tool call `memory`')
  })

  it('writes one JSON record per line in JSONL', async () => {
    const { stdout } = await engram(['export', ids.parent, '--format', 'jsonl', '--db', source])
    const records = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(records[0]).toMatchObject({ format: 'engram-export', version: 1, end: true })
    expect(records.slice(1).map((r) => r.type)).toEqual([
      'session',
      'message',
      'message',
      'message',
      'message',
      'episode',
      'session',
      'message',
      'message',
      'end',
    ])
    expect(records.at(-1)).toEqual({ type: 'end', sessions: 2 })
  })

  it('refuses a file that is not an export and an unknown format, writing nothing', async () => {
    const bogus = join(dir, 'bogus.json')
    const { writeFileSync } = await import('node:fs')
    writeFileSync(bogus, '{"hello": 1}')
    const target = join(dir, 'untouched.db')
    const result = await engram(['import', bogus, '--db', target])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      /bogus\.json is not an Engram export \(no "engram-export" version 1 header\)\. Import a file written by `engram export`/,
    )
    const format = await engram(['export', ids.parent, '--format', 'csv', '--db', source])
    expect(format.code).toBe(2)
    expect(format.stderr).toContain('--format must be one of json, jsonl, md (got "csv")')
    expect(readFileSync(bogus, 'utf8')).toBe('{"hello": 1}')
  })
})

describe('engram export --all', () => {
  it('reads each session once and each parent once: store calls grow linearly with the store', async () => {
    const { storeSessions } = await import('../src/transfer/document.ts')
    /** The store calls a whole-store walk makes over `chains` chains of `length` sessions each. */
    const callsFor = async (chains: number, length: number) => {
      const path = join(dir, `walk-${chains}-${length}.db`)
      await withStore(path, async (store) => {
        for (let c = 0; c < chains; c++) {
          let parent = (await store.createSession({ source: 'walk' })).id
          for (let i = 1; i < length; i++)
            parent = (await store.continueSession(parent, { endReason: 'compression', messages: [] })).session
              .id
        }
      })
      return withStore(path, async (store) => {
        let calls = 0
        const counted = new Proxy(store, {
          get(target, key) {
            const value = Reflect.get(target, key)
            if (typeof value !== 'function') return value
            return (...args: unknown[]) => {
              calls++
              return value.apply(target, args)
            }
          },
        })
        const order: string[] = []
        for await (const exported of storeSessions(counted)) order.push(exported.session.id)
        // Parents first, every session once.
        const seen = new Set<string>()
        for (const id of order) {
          const session = await store.getSession(id)
          if (session?.parentSessionId) expect(seen.has(session.parentSessionId)).toBe(true)
          seen.add(id)
        }
        expect(seen.size).toBe(chains * length)
        return calls
      })
    }
    const small = await callsFor(2, 20)
    const large = await callsFor(2, 160)
    // Linear: 8 times the sessions cost at most ~8 times the calls (a walk up each chain per session would be 64×).
    expect(large / small).toBeLessThan(9)
  })
})

describe('imports of files no export writes', () => {
  it('refuses a 600 MB JSONL line by its number without reading it whole, and a JSON file too large to read', async () => {
    // Sparse files: the header, a record that never ends, then NUL bytes up to the size (no disk used).
    const huge = join(dir, 'huge-line.jsonl')
    const fd = openSync(huge, 'w')
    writeSync(
      fd,
      '{"format":"engram-export","version":1,"exportedAt":1,"end":true}\n{"type":"message","message":"',
    )
    closeSync(fd)
    truncateSync(huge, 600 * 1024 * 1024)
    const target = join(dir, 'huge-target.db')
    const result = await engram(['import', huge, '--db', target])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      `engram: ${huge} is not an export Engram can read: line 2 is longer than 128 MiB, the most one record (a session, a message or an episode) may take. It was not read whole; nothing of that session was imported. Check the file is an \`engram export\` file; a message this large cannot be imported.\n`,
    )
    const document = join(dir, 'huge.json')
    writeFileSync(document, '{"format":"engram-export","version":1,"sessions":[')
    truncateSync(document, 300 * 1024 * 1024)
    const whole = await engram(['import', document, '--db', target])
    expect(whole.code).toBe(1)
    expect(whole.stderr).toContain(
      'huge.json is over 256 MiB, the most a JSON or Markdown export may be (it is read whole). Export the sessions as JSONL',
    )
  })

  it('names a session record without parentSessionId, writing nothing of it', async () => {
    const whole = await engram(['export', '--all', '--db', source])
    const lines = whole.stdout.trimEnd().split('\n')
    const edited = lines.map((line) => {
      const record = JSON.parse(line)
      if (record.type === 'session' && record.session.id === ids.child) delete record.session.parentSessionId
      return JSON.stringify(record)
    })
    const file = join(dir, 'no-parent.jsonl')
    writeFileSync(file, `${edited.join('\n')}\n`)
    const target = join(dir, 'no-parent.db')
    const result = await engram(['import', file, '--db', target])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `The record of session "${ids.child}" has no parentSessionId: it must be the id of the session it continues, or null when it continues none`,
    )
    await withStore(target, async (store) => {
      expect(await store.getSession(ids.child)).toBeNull()
      expect(await store.getSession(ids.parent)).not.toBeNull()
    })
  })
})

describe('the model settings a session ran with', () => {
  it('go through export --all / import (JSONL) and migrate --from; a record of an older version has none', async () => {
    const from = join(dir, 'settings.db')
    const config = {
      contextWindow: 6000,
      maxTokens: 700,
      model: 'qwen-local',
      base_url: 'http://127.0.0.1:8080/v1',
    }
    const made = await withStore(from, async (store) => {
      const recorded = await store.createSession({ source: 'cli', modelConfig: config })
      await store.appendMessage(recorded.id, { role: 'user', content: 'hello' })
      const child = await store.continueSession(recorded.id, { endReason: 'compression', messages: [] })
      const bare = await store.createSession({ source: 'cli' })
      return { recorded: recorded.id, child: child.session.id, bare: bare.id }
    })
    const file = join(dir, 'settings.jsonl')
    await engramJson(['export', '--all', '-o', file, '--db', from])
    // The same file as an older version wrote it: session records without modelConfig.
    const older = join(dir, 'settings-older.jsonl')
    writeFileSync(
      older,
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => {
          if (!line.startsWith('{"type":"session"')) return line
          const record = JSON.parse(line)
          delete record.session.modelConfig
          return JSON.stringify(record)
        })
        .join('\n'),
    )
    const imported = join(dir, 'settings-imported.db')
    const migrated = join(dir, 'settings-migrated.db')
    const fromOlder = join(dir, 'settings-older.db')
    await engramJson(['import', file, '--db', imported])
    await engramJson(['migrate', '--from', from, '--db', migrated])
    await engramJson(['import', older, '--db', fromOlder])
    for (const target of [imported, migrated]) {
      await withStore(target, async (store) => {
        expect((await store.getSession(made.recorded))?.modelConfig, target).toEqual(config)
        expect((await store.getSession(made.child))?.modelConfig, target).toEqual(config)
        expect((await store.getSession(made.bare))?.modelConfig, target).toBeNull()
      })
    }
    await withStore(fromOlder, async (store) => {
      for (const id of Object.values(made)) expect((await store.getSession(id))?.modelConfig).toBeNull()
    })
  })
})
