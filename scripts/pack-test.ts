/**
 * The pack-and-install test: builds and packs every workspace package, installs the tarballs with a plain
 * `npm install` (no flags) into a folder outside the workspace on one Node line with that line's SDK
 * versions, then, on that line's node: imports every entry a README or docs/ names, opens a SQLite and a
 * PGlite store, runs the README examples (the root "As a library" block, core, OpenAI Agents, AI SDK, LangGraph) as
 * written against a local OpenAI-compatible server, runs the installed CLI on the store, and checks that a
 * missing peer is named. Exits non-zero on the first failure.
 *
 *   pnpm test:pack --line 24 [--no-build] [--work DIR]   (also 20, 22; scripts/sdk-lines.ts says what each installs)
 *
 * The Node build comes from the npm registry (scripts/node-line.sh); npm's cache is kept beside it.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { type Reply, startServer } from '../packages/agent/test/servers/http.ts'
import { openaiAnswer } from '../packages/agent/test/servers/openai.ts'
import { seedPrebuilds } from './addon-builds.ts'
import { cacheBetterSqlite3Prebuild } from './prebuild-cache.ts'
import { lineArgument, lineRuntime, NODE_LINES } from './sdk-lines.ts'
import { documentedImports, ROOT, workspacePackages } from './workspace-packages.ts'

const run = promisify(execFile)
const line = lineArgument(process.argv.slice(2))
const { peers } = NODE_LINES[line]
/**
 * Installed beside the packages on every line: the drivers the documented entries import (PGlite, pg,
 * libSQL), tsx to run the READMEs' TypeScript, vitest and fast-check for @engram/core/testing.
 */
const EXTRAS = {
  '@electric-sql/pglite': '0.5.16',
  pg: '8.23.1',
  libsql: '0.5.29',
  '@libsql/client': '0.18.0',
  tsx: '4.23.15',
  vitest: '4.1.12',
  'fast-check': '4.10.2',
  // @engram/langgraph's peers: the same versions on every line (they run on Node 20 and later)
  '@langchain/langgraph': '1.7.3',
  '@langchain/langgraph-checkpoint': '1.2.2',
  '@langchain/core': '1.4.0',
}
/** `--work DIR`: install into DIR and keep it (a rerun then reinstalls only the packages that changed). */
const workArgument = process.argv.indexOf('--work')

const started = Date.now()

/** Prints a step with the seconds since the start, so a slow step shows in CI's log. */
function step(text: string) {
  console.log(`[pack-test node ${line}] ${text} (at ${Math.round((Date.now() - started) / 1000)} s)`)
}

async function sh(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  try {
    return await run(command, args, { ...options, maxBuffer: 64 * 1024 * 1024 })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd}) failed:\n${stdout ?? ''}\n${stderr ?? ''}`,
    )
  }
}

/** The first ```ts block after `heading` (or the first of the file), as the reader copies it. */
function tsBlock(file: string, heading?: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const from = heading === undefined ? 0 : text.indexOf(heading)
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(Math.max(from, 0)))?.[1]
  if (from === -1 || block === undefined)
    throw new Error(`${file}: no \`\`\`ts block${heading ? ` after ${heading}` : ''}`)
  return block
}

const runtime = lineRuntime(line, ROOT)
// The workspace's own settings do not leak into the user's install.
const lineEnv: NodeJS.ProcessEnv = { ...runtime.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' }
const { nodeBin } = runtime
const work =
  workArgument === -1
    ? mkdtempSync(join(tmpdir(), `engram-pack-${line}-`))
    : (process.argv[workArgument + 1] as string)
mkdirSync(work, { recursive: true })
try {
  step(`${(await sh(nodeBin, ['--version'], { cwd: work })).stdout.trim()} in ${work}`)

  if (!process.argv.includes('--no-build')) {
    step('pnpm build')
    await sh('pnpm', ['build'], { cwd: ROOT })
  }
  const tarballs = join(work, 'tarballs')
  mkdirSync(tarballs, { recursive: true })
  const dependencies: Record<string, string> = {}
  for (const pkg of workspacePackages()) {
    const { stdout } = await sh('pnpm', ['pack', '--json', '--pack-destination', tarballs], {
      cwd: join(ROOT, pkg.dir),
    })
    const { filename } = JSON.parse(stdout) as { filename: string }
    dependencies[pkg.json.name] = `file:${filename}`
  }
  step(`packed ${Object.keys(dependencies).join(', ')}`)

  const project = join(work, 'app')
  mkdirSync(project, { recursive: true })
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify(
      {
        name: 'engram-user',
        private: true,
        type: 'module',
        dependencies: { ...dependencies, ...peers, ...EXTRAS },
      },
      null,
      2,
    ),
  )
  step(
    `npm install (${Object.entries(peers)
      .map(([name, version]) => `${name}@${version}`)
      .join(', ')})`,
  )
  // A reused --work folder: npm does not look inside a file: tarball it installed before, so a package whose
  // tarball changed is removed first (the rest, the SDKs and their compiled addons stay).
  const stamps = join(project, 'tarballs.json')
  const previous = existsSync(stamps)
    ? (JSON.parse(readFileSync(stamps, 'utf8')) as Record<string, string>)
    : {}
  const current = Object.fromEntries(
    Object.entries(dependencies).map(([name, spec]) => [
      name,
      createHash('sha256')
        .update(readFileSync(spec.slice('file:'.length)))
        .digest('hex'),
    ]),
  )
  for (const name of Object.keys(current).filter((name) => previous[name] !== current[name])) {
    rmSync(join(project, 'node_modules', name), { recursive: true, force: true })
  }
  rmSync(join(project, 'package-lock.json'), { force: true })
  rmSync(join(project, 'stores'), { recursive: true, force: true })
  rmSync(join(project, 'data'), { recursive: true, force: true })
  writeFileSync(stamps, JSON.stringify(current))
  // The workspace's better-sqlite3 builds for this line, as the prebuilds a user's install downloads.
  for (const cached of seedPrebuilds(runtime)) step(`kept as prebuild-install's cached prebuild: ${cached}`)
  await sh('npm', ['install'], { cwd: project, env: lineEnv })
  for (const cached of cacheBetterSqlite3Prebuild(project, nodeBin, lineEnv)) {
    step(`better-sqlite3 compiled; kept as prebuild-install's cached prebuild ${cached}`)
  }

  step('import every documented entry')
  const specifiers = [...documentedImports().keys()]
  const imports = specifiers.map((specifier) => `await import(${JSON.stringify(specifier)})`).join('\n')
  writeFileSync(join(project, 'imports.mjs'), `${imports}\nconsole.log(${specifiers.length})\n`)
  await sh(nodeBin, ['imports.mjs'], { cwd: project, env: lineEnv })

  step('the installed manifests: exports without the workspace-only condition, drizzle-orm a peer of core')
  for (const name of Object.keys(dependencies)) {
    const manifest = readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')
    if (manifest.includes('engram-source'))
      throw new Error(`${name}: its installed package.json names the workspace-only engram-source condition`)
  }
  const coreManifest = JSON.parse(
    readFileSync(join(project, 'node_modules/@engram/core/package.json'), 'utf8'),
  ) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> }
  if (!coreManifest.peerDependencies?.['drizzle-orm'] || coreManifest.dependencies?.['drizzle-orm'])
    throw new Error('@engram/core: drizzle-orm must be a peer dependency, not a dependency')

  // Core and the compressor together (restore, Chinese search, compress, persist the compression), and the
  // compressor alone under module hooks that refuse drizzle-orm and every SQLite driver.
  cpSync(join(ROOT, 'scripts/pack-fixtures'), project, { recursive: true })
  step('core and the compressor: append, restore, search (Chinese too), compress, persist')
  const app = JSON.parse((await sh(nodeBin, ['app.mjs'], { cwd: project, env: lineEnv })).stdout) as Record<
    string,
    unknown
  >
  const expected = {
    restored: 25,
    firstContent: '第0步：部署后端服务 and check module0',
    english: 2,
    chinese: 10,
    compressed: 'compressed',
    lineage: 2,
  }
  for (const [key, value] of Object.entries(expected)) {
    if (app[key] !== value)
      throw new Error(`app.mjs: ${key} is ${JSON.stringify(app[key])}, expected ${value}`)
  }
  if (!((app.childMessages as number) < 25))
    throw new Error(`app.mjs: ${app.childMessages} messages after compression`)
  step('@engram/compressor compresses with drizzle-orm and the SQLite drivers refused')
  const pure = JSON.parse((await sh(nodeBin, ['pure.mjs'], { cwd: project, env: lineEnv })).stdout) as {
    status: string
    messages: number
  }
  if (pure.status !== 'compressed' || pure.messages >= 21)
    throw new Error(`pure.mjs: ${JSON.stringify(pure)}, expected a compression to fewer than 21 messages`)

  step('a SQLite store and a PGlite store')
  writeFileSync(
    join(project, 'stores.mjs'),
    `import { openStore } from '@engram/core'
for (const url of ['./stores/engram.db', 'pglite:./stores/pglite']) {
  const store = await openStore({ url })
  const session = await store.createSession({ source: 'cli' })
  await store.appendMessage(session.id, { role: 'user', content: 'We deploy with scripts/deploy.sh 周五部署' })
  const hits = [(await store.search('deploy')).length, (await store.search('部署')).length]
  await store.close()
  if (hits.join() !== '1,1') throw new Error(url + ': expected one hit for each search, got ' + hits)
}
`,
  )
  await sh(nodeBin, ['stores.mjs'], { cwd: project, env: lineEnv })

  step('the installed CLI reads that store')
  const engram = join(project, 'node_modules/.bin/engram')
  const version = (await sh(engram, ['--version'], { cwd: project, env: lineEnv })).stdout.trim()
  const found = JSON.parse(
    (
      await sh(engram, ['--db', './stores/engram.db', '--json', 'search', 'deploy'], {
        cwd: project,
        env: lineEnv,
      })
    ).stdout,
  ) as { hits: unknown[] }
  if (found.hits.length !== 1) throw new Error(`engram search found ${found.hits.length} hits, expected 1`)
  step(`engram ${version}: one hit`)

  const answer = (text: string): Reply => openaiAnswer({ text, usage: { prompt: 20, completion: 5 } })
  const examples = [
    {
      name: 'root README, As a library',
      block: tsBlock('README.md', '## As a library'),
      reply: 'Friday.',
      expect: 'Friday.',
    },
    { name: '@engram/core README', block: tsBlock('packages/core/README.md'), reply: '', expect: '' },
    {
      name: '@engram/openai-agents README',
      block: tsBlock('packages/openai-agents/README.md'),
      reply: 'Noted: scripts/deploy.sh.',
      expect: 'Noted: scripts/deploy.sh. 2',
    },
    {
      name: '@engram/langgraph README',
      block: tsBlock('packages/langgraph/README.md'),
      reply: 'Noted.',
      expect: 'Noted. 1',
    },
    {
      name: '@engram/ai-sdk README',
      block: tsBlock('packages/ai-sdk/README.md'),
      reply: 'Noted.',
      expect: 'Noted. 2',
    },
  ]
  for (const [index, example] of examples.entries()) {
    step(`README example: ${example.name}`)
    const server = await startServer([], answer(example.reply))
    try {
      const cwd = join(project, `example-${index}`)
      rmSync(cwd, { recursive: true, force: true })
      mkdirSync(cwd)
      const file = join(project, `example-${index}.ts`)
      writeFileSync(file, example.block)
      const { stdout } = await sh(join(project, 'node_modules/.bin/tsx'), [file], {
        cwd,
        env: {
          ...lineEnv,
          OPENAI_BASE_URL: `${server.origin}/v1`,
          OPENAI_API_KEY: 'sk-local',
          HERMES_MODEL: 'gpt-local',
        },
      })
      if (!stdout.includes(example.expect))
        throw new Error(`${example.name}: expected "${example.expect}" in\n${stdout}`)
      if (example.reply !== '' && server.requests.length === 0)
        throw new Error(`${example.name}: no request reached the local server`)
    } finally {
      await server.close()
    }
  }

  // A missing peer is named with the command that installs it: drizzle-orm (required; npm --legacy-peer-deps
  // leaves it out) from the first import, pg (optional: the driver a user picks) from its driver's entry.
  for (const [peer, entry] of [
    ['drizzle-orm', '@engram/agent'],
    ['pg', '@engram/core/drivers/pg'],
  ] as const) {
    step(`without ${peer}: importing ${entry} names it`)
    const folder = join(project, 'node_modules', peer)
    renameSync(folder, `${folder}.aside`)
    try {
      const probe = `import(${JSON.stringify(entry)}).then(() => process.exit(3), (e) => { console.log(e.code + ' ' + e.message); process.exit(0) })`
      const { stdout } = await sh(nodeBin, ['--input-type=module', '-e', probe], {
        cwd: project,
        env: lineEnv,
      })
      if (!stdout.startsWith('ENGRAM_MISSING_PEER') || !stdout.includes(`npm install ${peer}@`)) {
        throw new Error(`expected ENGRAM_MISSING_PEER naming ${peer}, got: ${stdout}`)
      }
    } finally {
      renameSync(`${folder}.aside`, folder)
    }
  }
  step(`passed in ${Math.round((Date.now() - started) / 1000)} s`)
} finally {
  if (workArgument === -1) rmSync(work, { recursive: true, force: true })
}
