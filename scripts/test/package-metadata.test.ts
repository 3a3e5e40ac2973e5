import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  documentedImports,
  type PackageJson,
  publishedExports,
  ROOT,
  requiredPeers,
  workspacePackages,
} from '../workspace-packages.ts'

const packages = workspacePackages()
const licence = readFileSync(join(ROOT, 'LICENSE'), 'utf8')

/** tsdown's entry map of a package: output name → source file. */
async function buildEntries(dir: string): Promise<Record<string, string>> {
  const config = (await import(join(ROOT, dir, 'tsdown.config.ts'))).default as {
    entry: Record<string, string>
  }
  return config.entry
}

describe.each(packages.map((pkg) => [pkg.dir, pkg] as const))('%s', (dir, { json }) => {
  it('publishes the exports the workspace resolves (publishConfig.exports = exports without engram-source)', () => {
    expect(json.exports, 'exports').toBeDefined()
    expect(
      json.publishConfig?.exports,
      `set publishConfig.exports of ${dir}/package.json to ${JSON.stringify(publishedExports(json.exports ?? {}))}`,
    ).toEqual(publishedExports(json.exports ?? {}))
  })

  it('points every export at a built entry, its types and its source', async () => {
    const entries = await buildEntries(dir)
    for (const [subpath, target] of Object.entries(json.exports ?? {})) {
      if (subpath === './package.json') continue
      const { 'engram-source': source, types, import: module } = target as Record<string, string>
      const name = Object.keys(entries).find((entry) => `./${entries[entry]}` === source)
      expect(name, `${dir}: ${subpath} (${source}) is no entry of tsdown.config.ts`).toBeDefined()
      expect(module, `${dir}: ${subpath}`).toBe(`./dist/entry/${name}.mjs`)
      expect(types, `${dir}: ${subpath}`).toBe(`./dist/${name}.d.mts`)
      expect(existsSync(join(ROOT, dir, source as string)), `${dir}: ${source}`).toBe(true)
    }
  })

  it('ships dist, a README, a CHANGELOG, the licence and a description, for the Node lines it is tested on', () => {
    expect(json.private, `${dir} must be publishable`).not.toBe(true)
    expect(json.files).toContain('dist')
    expect(json.license).toBe('MIT')
    expect(json.description?.length).toBeGreaterThan(20)
    expect(json.engines?.node).toBe('>=20')
    expect(json.files).toContain('CHANGELOG.md')
    expect(existsSync(join(ROOT, dir, 'README.md')), `${dir}/README.md`).toBe(true)
    expect(readFileSync(join(ROOT, dir, 'CHANGELOG.md'), 'utf8')).toMatch(
      new RegExp(`^# ${json.name}\n\n## ${json.version}`),
    )
    expect(readFileSync(join(ROOT, dir, 'LICENSE'), 'utf8'), `${dir}/LICENSE is the root LICENSE`).toBe(
      licence,
    )
  })

  it('lists every workspace dependency as a dependency, never as a peer', () => {
    for (const peer of Object.keys(json.peerDependencies ?? {}))
      expect(peer.startsWith('@engram/')).toBe(false)
  })
})

describe('what the docs import', () => {
  const byName = new Map<string, PackageJson>(packages.map((pkg) => [pkg.json.name, pkg.json]))

  it('finds the documented imports', () => {
    expect([...documentedImports().keys()]).toContain('@engram/core')
  })

  it.each([...documentedImports()])('%s is an export of its package', (specifier, docs) => {
    const [scope, name, ...rest] = specifier.split('/')
    const pkg = byName.get(`${scope}/${name}`)
    expect(pkg, `${specifier} (in ${docs.join(', ')}) names no workspace package`).toBeDefined()
    const subpath = rest.length === 0 ? '.' : `./${rest.join('/')}`
    expect(Object.keys(pkg?.publishConfig?.exports ?? {}), `${specifier} in ${docs.join(', ')}`).toContain(
      subpath,
    )
  })
})

describe('required peers', () => {
  it('keeps drizzle-orm a required peer of @engram/core', () => {
    const core = packages.find((pkg) => pkg.json.name === '@engram/core')?.json
    expect(core && requiredPeers(core)).toContain('drizzle-orm')
  })
})
