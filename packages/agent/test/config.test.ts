import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { DEFAULT_COMPRESSOR_CONFIG } from '@engram/compressor'
import { openStore } from '@engram/core'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { maskedConfig } from '../src/config/mask.ts'
import { DEFAULT_MODEL_IDS, describeConfig, loadConfig } from '../src/index.ts'

const root = mkdtempSync(join(tmpdir(), 'engram-config-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let counter = 0
/** A fresh folder holding one config file with `text`; returns the folder and the file. */
function withFile(name: string, text: string): { dir: string; file: string } {
  counter += 1
  const dir = join(root, `case-${counter}`)
  mkdirSync(dir, { recursive: true })
  const file = join(dir, name)
  writeFileSync(file, text)
  return { dir, file }
}

const toml = (text: string) => withFile('engram.toml', text)
const json = (value: unknown) => withFile('engram.json', JSON.stringify(value))

/** The INVALID_CONFIG error loadConfig throws for this file (fails the test when it does not throw). */
function configError(place: { dir: string }, env: Record<string, string> = {}): Error & { code?: string } {
  try {
    loadConfig({ cwd: place.dir, env })
  } catch (error) {
    expect((error as { code?: string }).code).toBe('INVALID_CONFIG')
    expect((error as Error).message).not.toContain('\n')
    return error as Error
  }
  throw new Error('expected loadConfig to refuse the configuration')
}

const ARTICLES_TOML = `
[hermes.storage]
db_path = "./data/hermes.db"
journal_mode = "WAL"
synchronous = "NORMAL"
busy_timeout = 1000
fts_enabled = true

[context_compressor]
trigger_ratio = 0.75
head_protect_messages = 3
tail_protect_tokens = 20000
tool_output_char_limit = 200
compress_model = "your-cheap-model-id"
repair_tool_pairs = true
summary_max_tokens = 1500

[memory_files]
memory_md_char_limit = 2200
user_md_char_limit = 1375
compact_trigger_ratio = 0.9

[nudge]
interval_tasks = 15
`

describe('loadConfig: defaults', () => {
  it('with no file and no key: the offline model, ./data/engram.db and the Hermes numbers', () => {
    const dir = mkdtempSync(join(root, 'empty-'))
    const config = loadConfig({ cwd: dir, env: {} })
    expect(config.api).toEqual({ provider: 'offline', timeoutSeconds: 60 })
    expect(config.storage).toEqual({ url: join(dir, 'data/engram.db') })
    expect(config.compressor).toEqual(DEFAULT_COMPRESSOR_CONFIG)
    expect(config.memoryFiles).toEqual({
      memoryPath: join(dir, 'data/MEMORY.md'),
      userPath: join(dir, 'data/USER.md'),
      memoryCharLimit: 2_200,
      userCharLimit: 1_375,
      compactTriggerRatio: 0.9,
    })
    expect(config.nudge).toEqual({ intervalTasks: 15 })
    expect(config.models.main.modelId).toBe('engram-offline')
    expect(config.models.compressor.modelId).toBe('engram-offline')
    expect(config.origin).toEqual({ file: null, env: [] })
  })
})

describe('loadConfig: the Hermes TOML', () => {
  it('reads the sections verbatim', () => {
    const place = toml(ARTICLES_TOML)
    const config = loadConfig({ cwd: place.dir, env: {} })
    expect(config.origin?.file).toBe(place.file)
    expect(config.storage).toEqual({
      url: join(place.dir, 'data/hermes.db'),
      journalMode: 'WAL',
      synchronous: 'NORMAL',
      busyTimeout: 1000,
    })
    expect(config.compressor).toEqual(DEFAULT_COMPRESSOR_CONFIG)
    expect(config.models.compressor.modelId).toBe('your-cheap-model-id')
    expect(config.models.compressor.maxTokens).toBe(1_500)
    expect(config.memoryFiles).toMatchObject({
      memoryCharLimit: 2_200,
      userCharLimit: 1_375,
      compactTriggerRatio: 0.9,
    })
    expect(config.nudge.intervalTasks).toBe(15)
  })

  // Ported from core's storeOptionsFromToml test: the [hermes.storage] table opens a real store.
  it('maps [hermes.storage] to store options that open a store', async () => {
    const place = toml(
      '[hermes.storage]\ndb_path = "store.db"\njournal_mode = "WAL"\nsynchronous = "full"\nbusy_timeout = 2500\nfts_enabled = true\n',
    )
    const { storage } = loadConfig({ cwd: place.dir, env: {} })
    const path = join(place.dir, 'store.db')
    expect(storage).toEqual({ url: path, journalMode: 'WAL', synchronous: 'FULL', busyTimeout: 2500 })
    const store = await openStore(storage)
    await store.close()
    expect(existsSync(path)).toBe(true)
  })

  it.each([
    ['db_pth = "x"', /hermes\.storage\.db_pth is not a known key \(known: db_path, journal_mode/],
    [
      'busy_timeout = "1000"',
      /hermes\.storage\.busy_timeout must be a whole number of at least 0 \(got "1000"\)/,
    ],
    ['journal_mode = "wall"', /hermes\.storage\.journal_mode must be one of WAL, DELETE/],
    ['db_path = 7', /hermes\.storage\.db_path must be a non-empty string/],
    ['fts_enabled = false', /hermes\.storage\.fts_enabled must be true: Engram always indexes/],
  ])('refuses [hermes.storage] %s naming the key', (line, message) => {
    const error = configError(toml(`[hermes.storage]\n${line}\n`))
    expect(error.message).toMatch(message)
    expect(error.message).toContain('engram.toml')
  })

  // Ported from the compressor's configFromToml tests.
  it('maps [context_compressor] to the compressor’s camelCase options', () => {
    const place = toml(`[context_compressor]
trigger_ratio = 0.8
head_protect_messages = 2
tail_protect_tokens = 10000
tool_output_char_limit = 300
compress_model = "cheap-model"
repair_tool_pairs = false
summary_max_tokens = 1000
`)
    expect(loadConfig({ cwd: place.dir, env: {} }).compressor).toEqual({
      triggerRatio: 0.8,
      headProtectMessages: 2,
      tailProtectTokens: 10_000,
      toolOutputCharLimit: 300,
      repairToolPairs: false,
      summaryMaxTokens: 1_000,
      replyBudgetTokens: DEFAULT_COMPRESSOR_CONFIG.replyBudgetTokens,
    })
    const budget = toml('[context_compressor]\nreply_budget_tokens = 8000\n')
    expect(loadConfig({ cwd: budget.dir, env: {} }).compressor.replyBudgetTokens).toBe(8_000)
  })

  it.each([
    ['trigger_ratio', '0.75'],
    ['trigger_ratio', 1.5],
    ['head_protect_messages', 2.5],
    ['tail_protect_tokens', -1],
    ['tool_output_char_limit', 0],
    ['repair_tool_pairs', 'yes'],
    ['compress_model', ''],
    ['summary_max_tokens', null],
  ])('refuses context_compressor.%s = %j naming the key', (key, value) => {
    const error = configError(json({ context_compressor: { [key]: value } }))
    expect(error.message).toContain(`context_compressor.${key} must be`)
    expect(error.message).toContain(`(got ${JSON.stringify(value)})`)
  })

  it('refuses unknown keys in every section, which are usually typos', () => {
    expect(configError(toml('[context_compressor]\ntrigger_ration = 0.5\n')).message).toMatch(
      /context_compressor\.trigger_ration is not a known key/,
    )
    expect(configError(toml('[nudge]\ninterval = 3\n')).message).toMatch(/nudge\.interval is not a known key/)
    expect(configError(toml('[memory_file]\nmemory_md_char_limit = 3\n')).message).toMatch(
      /^Invalid configuration in .*engram\.toml: memory_file is not a known key \(known: hermes, context_compressor, memory_files/,
    )
  })

  it('names any unknown key of any section (property)', () => {
    const sections = ['context_compressor', 'memory_files', 'nudge', 'api', 'memory']
    fc.assert(
      fc.property(fc.constantFrom(...sections), fc.stringMatching(/^[a-z][a-z_]{0,20}x$/), (section, key) => {
        const error = configError(json({ [section]: { [key]: 1 } }))
        expect(error.message).toContain(`${section}.${key} is not a known key`)
      }),
      { numRuns: 40 },
    )
  })

  it('refuses a section that is not a table and a file that is not TOML', () => {
    expect(configError(toml('nudge = 3\n')).message).toMatch(/nudge must be a table of keys \(got 3\)/)
    const broken = configError(toml('[nudge\ninterval_tasks = 3\n'))
    expect(broken.message).toMatch(
      /engram\.toml is not valid TOML at line 1, column \d+: .*Fix the syntax there\.$/,
    )
    const value = configError(toml('[nudge]\n\ninterval_tasks = = 3\n'))
    expect(value.message).toMatch(/engram\.toml is not valid TOML at line 3, column 18: invalid value\. Fix/)
    const comma = configError(withFile('engram.json', '{\n  "nudge": { "interval_tasks": 3, }\n}'))
    expect(comma.message).toMatch(/engram\.json is not valid JSON at line 2, column 35: /)
    expect(configError(json([1, 2])).message).toMatch(/the file must hold a table of sections/)
  })

  it('checks the memory-file limits and the nudge interval', () => {
    expect(configError(toml('[memory_files]\ncompact_trigger_ratio = 0\n')).message).toMatch(
      /memory_files\.compact_trigger_ratio must be a number greater than 0 and at most 1 \(got 0\)/,
    )
    expect(configError(toml('[nudge]\ninterval_tasks = -1\n')).message).toMatch(
      /nudge\.interval_tasks must be a whole number of at least 0/,
    )
    // 0 turns the nudge off.
    expect(loadConfig({ cwd: toml('[nudge]\ninterval_tasks = 0\n').dir, env: {} }).nudge).toEqual({
      intervalTasks: 0,
    })
  })
})

describe('loadConfig: the JSON settings shape', () => {
  const settings = {
    api: { base_url: 'https://api.example.com', api_key: 'sk-file-secret-1234', timeout_seconds: 30 },
    models: {
      main: { model_id: 'main-model', max_tokens: 2000 },
      compressor: { model_id: 'cheap-model', max_tokens: 800 },
    },
    memory: { sqlite_path: 'db/agent.db', memory_md_path: 'notes/MEMORY.md', user_md_path: 'notes/USER.md' },
  }

  it('maps api, models and memory; relative paths are resolved against the file’s folder', () => {
    const place = json(settings)
    const config = loadConfig({ cwd: root, file: place.file, env: {} })
    expect(config.api).toEqual({
      provider: 'openai',
      baseUrl: 'https://api.example.com',
      apiKey: 'sk-file-secret-1234',
      apiKeySource: `api.api_key in ${place.file}`,
      timeoutSeconds: 30,
    })
    expect(config.models.main).toEqual({ modelId: 'main-model', maxTokens: 2000, contextWindow: 128_000 })
    expect(config.models.compressor).toEqual({
      modelId: 'cheap-model',
      maxTokens: 800,
      contextWindow: 128_000,
    })
    expect(config.storage.url).toBe(join(place.dir, 'db/agent.db'))
    expect(config.memoryFiles.memoryPath).toBe(join(place.dir, 'notes/MEMORY.md'))
    expect(config.memoryFiles.userPath).toBe(join(place.dir, 'notes/USER.md'))
  })

  it('accepts both shapes in one TOML file, with prices and context windows', () => {
    const place = toml(`${ARTICLES_TOML}
[models.main]
model_id = "big"
context_window = 32000
price = { input = 3, output = 15, cache_read = 0.3 }
`)
    const { models } = loadConfig({ cwd: place.dir, env: {} })
    expect(models.main).toEqual({
      modelId: 'big',
      maxTokens: 4096,
      contextWindow: 32_000,
      price: { input: 3, output: 15, cacheRead: 0.3 },
    })
  })

  it('refuses two keys that set the same thing differently', () => {
    expect(
      configError(json({ hermes: { storage: { db_path: 'a.db' } }, memory: { sqlite_path: 'b.db' } }))
        .message,
    ).toMatch(/memory\.sqlite_path and hermes\.storage\.db_path set the same thing/)
    expect(
      configError(
        json({ context_compressor: { compress_model: 'a' }, models: { compressor: { model_id: 'b' } } }),
      ).message,
    ).toMatch(/models\.compressor\.model_id and context_compressor\.compress_model/)
  })

  it('never repeats a secret in an error', () => {
    const error = configError(json({ api: { api_key: 12345678 } }))
    expect(error.message).toMatch(
      /api\.api_key must be a non-empty string .*\(got a value that is not shown\)/,
    )
    expect(error.message).not.toContain('12345678')
    expect(configError(json({ api: { base_url: 'ftp://x' } })).message).toMatch(
      /api\.base_url must be an http\(s\) url/,
    )
  })

  it('needs a key when a provider is named', () => {
    expect(configError(json({ api: { provider: 'anthropic' } })).message).toMatch(
      /api\.provider is anthropic but no API key is set\. Export ANTHROPIC_API_KEY or set api\.api_key\./,
    )
  })
})

describe('loadConfig: the environment overrides the file', () => {
  it('takes the key, base url, model and database from the environment', () => {
    const place = json({
      api: { base_url: 'https://file.example.com', api_key: 'sk-from-file' },
      models: { main: { model_id: 'file-model' } },
      memory: { sqlite_path: 'file.db' },
    })
    const config = loadConfig({
      cwd: place.dir,
      env: {
        OPENAI_API_KEY: 'sk-from-env',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/gateway',
        HERMES_MODEL: 'env-model',
        ENGRAM_DB_URL: 'libsql://example.turso.io',
        ENGRAM_DB_AUTH_TOKEN: 'token-secret',
      },
    })
    expect(config.api).toMatchObject({
      provider: 'openai',
      apiKey: 'sk-from-env',
      apiKeySource: 'OPENAI_API_KEY',
      baseUrl: 'http://127.0.0.1:9/gateway',
    })
    expect(config.models.main.modelId).toBe('env-model')
    expect(config.models.compressor.modelId).toBe('env-model')
    expect(config.storage).toMatchObject({ url: 'libsql://example.turso.io', authToken: 'token-secret' })
    expect(config.origin?.env.sort()).toEqual(
      ['ENGRAM_DB_AUTH_TOKEN', 'ENGRAM_DB_URL', 'HERMES_MODEL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'].sort(),
    )
  })

  it('uses Anthropic with only an Anthropic key, and ignores empty variables', () => {
    const dir = mkdtempSync(join(root, 'env-'))
    const config = loadConfig({ cwd: dir, env: { OPENAI_API_KEY: '  ', ANTHROPIC_API_KEY: 'sk-ant-x' } })
    expect(config.api).toMatchObject({ provider: 'anthropic', apiKeySource: 'ANTHROPIC_API_KEY' })
    expect(config.models.main.modelId).toBe(DEFAULT_MODEL_IDS.anthropic)
  })

  it('refuses a malformed base url from the environment, naming the variable', () => {
    const dir = mkdtempSync(join(root, 'env-'))
    const error = configError({ dir }, { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'localhost:8080' })
    expect(error.message).toMatch(/^OPENAI_BASE_URL localhost:8080 is not an http\(s\) URL/)
  })

  it('refuses a named config file that does not exist', () => {
    const error = (() => {
      try {
        loadConfig({ cwd: root, file: 'missing.toml', env: {} })
      } catch (e) {
        return e as Error & { code: string }
      }
    })()
    expect(error?.code).toBe('INVALID_CONFIG')
    expect(error?.message).toMatch(/missing\.toml does not exist/)
  })
})

describe('maskedConfig', () => {
  it('hides the API key and the database token, keeping where they came from', () => {
    const dir = mkdtempSync(join(root, 'mask-'))
    const config = loadConfig({
      cwd: dir,
      env: {
        OPENAI_API_KEY: 'sk-live-abcdef123456',
        ENGRAM_DB_URL: 'libsql://db.turso.io?authToken=tok-987654',
        ENGRAM_DB_AUTH_TOKEN: 'tok-123456789',
      },
    })
    const printed = JSON.stringify(maskedConfig(config))
    expect(printed).not.toContain('abcdef123456')
    expect(printed).not.toContain('tok-987654')
    expect(printed).not.toContain('tok-123456789')
    expect(maskedConfig(config).api.apiKey).toBe('(set, hidden) from OPENAI_API_KEY')
    expect(maskedConfig(config).storage.url).toBe('libsql://db.turso.io?authToken=***')
    expect(maskedConfig(config).compressor).toEqual(config.compressor)
  })
})

describe('defaults', () => {
  it('the default Anthropic model is not in the SDK’s table of deprecated models', () => {
    const require = createRequire(import.meta.url)
    const sdk = dirname(require.resolve('@anthropic-ai/sdk'))
    const { DEPRECATED_MODELS } = require(join(sdk, 'internal/data/deprecated-models.js')) as {
      DEPRECATED_MODELS: Record<string, string>
    }
    expect(Object.keys(DEPRECATED_MODELS)).toContain('claude-sonnet-4-5')
    expect(Object.keys(DEPRECATED_MODELS)).not.toContain(DEFAULT_MODEL_IDS.anthropic)
  })
})

describe('loadConfig: overrides (the command line)', () => {
  it('dbPath wins over ENGRAM_DB_URL and the file, relative to cwd, and the memory files follow it', () => {
    const place = toml('[hermes.storage]\ndb_path = "file.db"\n')
    const config = loadConfig({
      cwd: place.dir,
      env: { ENGRAM_DB_URL: 'env.db' },
      overrides: { dbPath: 'cli/agent.db' },
    })
    expect(config.storage.url).toBe(join(place.dir, 'cli/agent.db'))
    expect(config.memoryFiles.memoryPath).toBe(join(place.dir, 'cli/MEMORY.md'))
    expect(config.memoryFiles.userPath).toBe(join(place.dir, 'cli/USER.md'))
    expect(config.origin?.env).toEqual([])
  })

  it('two databases never share memory files unless the file names them', () => {
    const dir = mkdtempSync(join(root, 'two-'))
    const a = loadConfig({ cwd: dir, env: {}, overrides: { dbPath: 'a/x.db' } }).memoryFiles
    const b = loadConfig({ cwd: dir, env: {}, overrides: { dbPath: 'b/x.db' } }).memoryFiles
    expect(a.memoryPath).not.toBe(b.memoryPath)
    expect(a.userPath).not.toBe(b.userPath)
    const fromEnv = loadConfig({ cwd: dir, env: { ENGRAM_DB_URL: 'c/x.db' } }).memoryFiles
    expect(fromEnv.memoryPath).toBe(join(dir, 'c/MEMORY.md'))
    const named = json({ memory: { memory_md_path: 'notes/M.md' } })
    const pinned = loadConfig({ cwd: named.dir, env: {}, overrides: { dbPath: 'a/x.db' } }).memoryFiles
    expect(pinned.memoryPath).toBe(join(named.dir, 'notes/M.md'))
    expect(pinned.userPath).toBe(join(named.dir, 'a/USER.md'))
  })

  it('a database that is not a local file keeps its memory files in ./data', () => {
    const dir = mkdtempSync(join(root, 'remote-'))
    for (const url of ['libsql://db.turso.io', ':memory:', 'postgres://h/db']) {
      const { memoryFiles } = loadConfig({ cwd: dir, env: {}, overrides: { dbPath: url } })
      expect(memoryFiles.memoryPath).toBe(join(dir, 'data/MEMORY.md'))
    }
    const file = loadConfig({ cwd: dir, env: {}, overrides: { dbPath: 'file:sub/ok.db' } })
    expect(file.storage.url).toBe('file:sub/ok.db')
    expect(file.memoryFiles.memoryPath).toBe(join(dir, 'sub/MEMORY.md'))
  })

  it('model sets the same models as HERMES_MODEL: the main one, and the compressor unless configured', () => {
    const dir = mkdtempSync(join(root, 'model-'))
    const cases: [Record<string, string>, { model?: string }][] = [
      [{ HERMES_MODEL: 'm1' }, {}],
      [{ HERMES_MODEL: 'other' }, { model: 'm1' }],
    ]
    for (const [env, overrides] of cases) {
      const { models } = loadConfig({ cwd: dir, env, overrides })
      expect([models.main.modelId, models.compressor.modelId]).toEqual(['m1', 'm1'])
    }
    const place = toml('[context_compressor]\ncompress_model = "cheap"\n')
    const { models } = loadConfig({ cwd: place.dir, env: {}, overrides: { model: 'm1' } })
    expect([models.main.modelId, models.compressor.modelId]).toEqual(['m1', 'cheap'])
  })
})

describe('loadConfig: credentials in a base URL', () => {
  const secret = 'sk-secret0123456789ABCDEF'
  it.each([
    [`http://user:${secret}@127.0.0.1:9/v1`, 'credentials in the base URL are not supported'],
    [`http://127.0.0.1:9/v1?api-key=${secret}`, 'query string'],
  ])('refuses %s naming the key and the fix, without the secret', (url, cause) => {
    const dir = mkdtempSync(join(root, 'cred-'))
    const fromEnv = configError({ dir }, { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: url })
    expect(fromEnv.message).toMatch(/^OPENAI_BASE_URL http:\/\/.*127\.0\.0\.1:9\/v1/)
    const fromFile = configError(json({ api: { base_url: url, api_key: 'sk-file-1234' } }))
    expect(fromFile.message).toMatch(/^api\.base_url in .*engram\.json/)
    for (const error of [fromEnv, fromFile]) {
      expect(error.message).toContain(cause)
      expect(error.message).toContain('OPENAI_API_KEY')
      expect(error.message).not.toContain(secret)
    }
  })
})

describe('describeConfig', () => {
  it('names every value with the file’s own keys, secrets masked', () => {
    const place = toml(`${ARTICLES_TOML}
[api]
base_url = "https://gw.example.com/v1"
`)
    const described = describeConfig(
      loadConfig({ cwd: place.dir, env: { OPENAI_API_KEY: 'sk-live-abcdef123456' } }),
    )
    expect(described.hermes?.storage).toMatchObject({
      db_path: join(place.dir, 'data/hermes.db'),
      journal_mode: 'WAL',
      busy_timeout: 1000,
    })
    expect(described.context_compressor).toMatchObject({ trigger_ratio: 0.75, tail_protect_tokens: 20_000 })
    expect(described.models?.compressor?.model_id).toBe('your-cheap-model-id')
    expect(described.memory_files?.memory_md_char_limit).toBe(2_200)
    expect(described.nudge?.interval_tasks).toBe(15)
    expect(described.api).toEqual({
      provider: 'openai',
      base_url: 'https://gw.example.com/v1',
      api_key: '(set, hidden) from OPENAI_API_KEY',
      timeout_seconds: 60,
    })
    expect(JSON.stringify(described)).not.toContain('abcdef123456')
    const keys = (value: unknown): string[] =>
      value && typeof value === 'object'
        ? Object.entries(value).flatMap(([key, inner]) => [key, ...keys(inner)])
        : []
    expect(keys(described).filter((key) => /[A-Z]/.test(key))).toEqual([])
  })

  it('loads back into the same configuration', () => {
    const place = toml(`${ARTICLES_TOML}
[models.main]
model_id = "big"
price = { input = 3, output = 15 }
`)
    const config = loadConfig({ cwd: place.dir, env: {} })
    const again = json(describeConfig(config))
    expect(loadConfig({ cwd: again.dir, env: {} })).toEqual({ ...config, origin: expect.anything() })
  })
})
