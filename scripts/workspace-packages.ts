import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** What this repository's tests read of a package.json. */
export interface PackageJson {
  name: string
  version: string
  private?: boolean
  description?: string
  license?: string
  files?: string[]
  bin?: Record<string, string>
  engines?: Record<string, string>
  exports?: Record<string, unknown>
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  publishConfig?: { exports?: Record<string, unknown> }
}

export interface WorkspacePackage {
  /** The folder, relative to the root (`packages/core`). */
  dir: string
  json: PackageJson
}

/**
 * Every package pnpm-workspace.yaml names (its `- folder/*` lines), so a new package is checked, packed and
 * installed by the tests without being listed anywhere else.
 */
export function workspacePackages(): WorkspacePackage[] {
  const yaml = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8')
  const globs = [...yaml.matchAll(/^\s+-\s+['"]?([\w./-]+)\/\*['"]?\s*$/gm)].map(
    (match) => match[1] as string,
  )
  if (globs.length === 0) throw new Error('pnpm-workspace.yaml names no `- folder/*` package globs')
  return globs.flatMap((parent) =>
    readdirSync(join(ROOT, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, parent, entry.name, 'package.json')))
      .map((entry) => {
        const dir = `${parent}/${entry.name}`
        return { dir, json: JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as PackageJson }
      }),
  )
}

/** The exports a package publishes: its workspace `exports` without the `engram-source` condition. */
export function publishedExports(exports: Record<string, unknown>): Record<string, unknown> {
  const strip = (value: unknown): unknown =>
    typeof value === 'object' && value !== null
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([condition]) => condition !== 'engram-source')
            .map(([condition, target]) => [condition, strip(target)]),
        )
      : value
  return strip(exports) as Record<string, unknown>
}

/** The non-optional peers of a package: what it cannot load without. */
export function requiredPeers(json: PackageJson): string[] {
  return Object.keys(json.peerDependencies ?? {}).filter(
    (name) => json.peerDependenciesMeta?.[name]?.optional !== true,
  )
}

/** Every `@engram/…` module specifier the README, docs/ and the package READMEs import or name in backticks. */
export function documentedImports(): Map<string, string[]> {
  const docs = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
    ...workspacePackages().map((pkg) => `${pkg.dir}/README.md`),
  ]
  const found = new Map<string, string[]>()
  for (const doc of docs) {
    if (!existsSync(join(ROOT, doc))) continue
    const text = readFileSync(join(ROOT, doc), 'utf8')
    const specifiers =
      /(?:from\s+|import\(\s*)['"](@engram\/[\w.-]+(?:\/[\w./-]+)?)['"]|`(@engram\/[\w.-]+(?:\/[\w./-]+)?)`/g
    for (const match of text.matchAll(specifiers)) {
      const specifier = (match[1] ?? match[2]) as string
      found.set(specifier, [...new Set([...(found.get(specifier) ?? []), doc])])
    }
  }
  return found
}
