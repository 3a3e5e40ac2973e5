import { existsSync } from 'node:fs'
import { describeConfig, type EngramConfig, loadConfig, maskUrl } from '@engram/agent'
import { openStore } from '@engram/core'
import type { Command } from 'commander'
import { createContext, localDatabasePath, overridesOf } from '../context.ts'
import { AlreadyReported, errorLine } from '../errors.ts'
import { defaultDatabase } from '../identity.ts'
import { type Check, checkMemoryFiles } from '../memory-check.ts'
import type { Io } from '../output.ts'
import { probeProvider } from '../provider-check.ts'
import { cjkFontCheck } from '../ui/font-check.ts'

const POSTGRES_DRIVERS = new Set(['pg', 'pglite'])

async function storeChecks(config: EngramConfig): Promise<Check[]> {
  const where = maskUrl(config.storage.url ?? '')
  const path = localDatabasePath(config.storage.url ?? '')
  // A check creates nothing: a missing file is reported, not made.
  if (path !== null && !existsSync(path)) {
    return [
      {
        name: 'database',
        ok: false,
        detail: `there is no database at ${path}`,
        fix: 'check --db (or ENGRAM_DB_URL, db_path), or create it with `engram migrate` (or `engram chat`)',
      },
    ]
  }
  let store: Awaited<ReturnType<typeof openStore>>
  try {
    store = await openStore(config.storage)
  } catch (error) {
    return [{ name: 'database', ok: false, detail: errorLine(error) }]
  }
  try {
    const checks: Check[] = [
      { name: 'database', ok: true, detail: `${where} opens (${store.driverName}); migrations are current` },
    ]
    const report = await store.checkIntegrity()
    const dbOk = report.status !== 'corrupt' && report.status !== 'failed'
    // SQLite checks its pages (PRAGMA integrity_check); PostgreSQL keeps its own, so the store reads every
    // table and search index to the end there.
    const how = POSTGRES_DRIVERS.has(store.driverName)
      ? 'every table and search index reads to the end'
      : 'PRAGMA integrity_check'
    checks.push({
      name: 'integrity',
      ok: dbOk,
      detail: `${how}: ${report.database.slice(0, 3).join('; ')}`,
      ...(dbOk || !report.fix ? {} : { fix: report.fix }),
    })
    const { messages, episodes } = report.searchIndex
    const ftsOk = report.status === 'ok' || report.status === 'busy'
    checks.push({
      name: 'search index',
      ok: ftsOk && dbOk,
      detail:
        report.status === 'busy'
          ? `not checked: ${report.fix}`
          : `messages: ${messages}; episodes: ${episodes}`,
      ...(report.status === 'search-index' ? { fix: 'run `engram reindex`' } : {}),
    })
    return checks
  } catch (error) {
    return [{ name: 'database', ok: false, detail: errorLine(error) }]
  } finally {
    await store.close()
  }
}

/**
 * `engram doctor`: config, database, migrations, integrity, search index, memory files and provider, each
 * a ✓ or ✗ line with the fix, then the effective configuration with secrets masked. Exit code 1 when any
 * check fails.
 */
export function registerDoctor(program: Command, io: Io): void {
  program
    .command('doctor')
    .description('check the config, database, search index, memory files and model provider')
    .action(async (_options, command: Command) => {
      const ctx = createContext(command, io)
      const checks: Check[] = []
      let config: EngramConfig
      try {
        config = ctx.config()
        checks.push({
          name: 'config',
          ok: true,
          detail: config.origin?.file
            ? `${config.origin.file} is valid`
            : 'no config file (engram.toml or engram.json here, or --config): the defaults apply',
        })
      } catch (error) {
        checks.push({
          name: 'config',
          ok: false,
          detail: errorLine(error),
          fix: 'correct that key, or write a fresh file with `engram init`',
        })
        config = loadConfig({
          file: null,
          env: io.env,
          cwd: io.cwd,
          overrides: overridesOf(ctx.options),
          defaultDatabase: defaultDatabase(io.env),
        })
      }
      checks.push(...(await storeChecks(config)))
      checks.push(...(await checkMemoryFiles(config.memoryFiles)))
      checks.push({ name: 'model', ...(await probeProvider(config, io.env)) })
      const fonts = cjkFontCheck(io.env)
      if (fonts) checks.push(fonts)
      const ok = checks.every((c) => c.ok)
      const effective = describeConfig(config)
      const { out } = ctx
      if (out.json) out.printJson({ ok, checks, config: effective })
      else {
        for (const check of checks) {
          const mark = !check.ok
            ? out.color.red('✗')
            : check.warn
              ? out.color.yellow('!')
              : out.color.green('✓')
          out.line(`${mark} ${out.color.bold(check.name)}: ${check.detail}`)
          if (check.fix) out.line(`  ${out.color.dim(`fix: ${check.fix}`)}`)
        }
        out.line()
        out.line(out.color.dim('Effective configuration (secrets masked):'))
        out.line(out.color.dim(JSON.stringify(effective, null, 2)))
      }
      if (!ok) throw new AlreadyReported('doctor found problems')
    })
}
