import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createAccessToken, openStore } from '@engram/core'
import { expect, it } from 'vitest'
import { startAuthProxy } from './conformance/auth-proxy.ts'
import { startHttpServer } from './http-helpers.ts'

// The suite's own entry point (its package's bin), run with this node.
const CONFORMANCE = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
)
const EXPECTED_FAILURES = fileURLToPath(new URL('./conformance/expected-failures.yaml', import.meta.url))

/** The scenarios that apply to Engram's server: each must pass on its own merits. */
const APPLICABLE = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'tools-list',
  'server-sse-multiple-streams',
  'resources-list',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'dns-rebinding-protection',
]
/** Scenarios the suite passes on an error for a fixture tool Engram does not have (see the YAML). */
const FALSE_PASSES = ['tools-call-simple-text', 'tools-call-error']

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO'
  details?: unknown
  errorMessage?: string
}

it('engram mcp --http passes the MCP conformance scenarios that apply; the others fail for the reasons listed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-conformance-'))
  const db = join(dir, 'engram.db')
  const store = await openStore({ url: db })
  const { secret } = await createAccessToken(store, { userId: 'conformance' })
  await store.close()
  // The suite sends no credentials: a proxy adds the token, passing Host and Origin through, and the
  // server accepts the proxy's address as a host name (as behind any reverse proxy).
  const proxy = await startAuthProxy(secret)
  const server = await startHttpServer(
    ['--db', db, '--allowed-host', `localhost:${proxy.port}`, `127.0.0.1:${proxy.port}`],
    { HOME: dir },
  )
  proxy.forwardTo(server.url)
  const out = join(dir, 'results')
  try {
    const run = await promisify(execFile)(
      process.execPath,
      [
        CONFORMANCE,
        'server',
        '--url',
        `http://localhost:${proxy.port}/mcp`,
        '--expected-failures',
        EXPECTED_FAILURES,
        '-o',
        out,
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { code?: number; stdout?: string; stderr?: string }) => error)
    const log = `${run.stdout ?? ''}\n${run.stderr ?? ''}`
    expect(log, log.slice(-4000)).toContain('Baseline check passed: all failures are expected.')

    const results = new Map<string, Check[]>()
    for (const folder of readdirSync(out)) {
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(folder)?.[1]
      if (scenario) results.set(scenario, JSON.parse(readFileSync(join(out, folder, 'checks.json'), 'utf8')))
    }
    for (const scenario of APPLICABLE) {
      const checks = results.get(scenario) ?? []
      const graded = checks.filter((c) => c.status !== 'INFO')
      expect(graded.length, scenario).toBeGreaterThan(0)
      expect(
        graded.filter((c) => c.status !== 'SUCCESS'),
        scenario,
      ).toEqual([])
      // A pass on an error (an unknown tool, resource or method) is no pass.
      expect(JSON.stringify(checks), scenario).not.toMatch(/not found|Method not found|-32601|-32602/)
    }
    for (const scenario of FALSE_PASSES)
      expect(JSON.stringify(results.get(scenario)), scenario).toMatch(/Tool test_\w+ not found/)
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
    await proxy.close()
    rmSync(dir, { recursive: true, force: true })
  }
}, 600_000)
