import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// The direction of core's modules (issue 29), read from the source itself: every import of every module
// under src/, type-only imports and re-exports included (TypeScript's own scanner finds them).
const SRC = fileURLToPath(new URL('../src/', import.meta.url))

function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return modulesUnder(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Each module (by its path under src/) and the modules of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const path of modulesUnder(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true)
    const local = importedFiles
      .map((file) => file.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(SRC, resolve(dirname(path), name)))
    graph.set(relative(SRC, path), [...new Set(local)])
  }
  return graph
}

/** The packages each module under src/ imports (bare specifiers, by their full subpath). */
function packageImports(): Map<string, string[]> {
  const imports = new Map<string, string[]>()
  for (const path of modulesUnder(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true)
    const names = importedFiles.map((file) => file.fileName).filter((name) => !name.startsWith('.'))
    imports.set(relative(SRC, path), [...new Set(names)])
  }
  return imports
}

/** Every module `from` reaches through imports, each with the chain that reaches it. */
function reachable(graph: ReadonlyMap<string, readonly string[]>, from: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[from, [from]]])
  const queue = [from]
  for (let module = queue.shift(); module !== undefined; module = queue.shift()) {
    for (const next of graph.get(module) ?? []) {
      if (chains.has(next)) continue
      chains.set(next, [...(chains.get(module) ?? []), next])
      queue.push(next)
    }
  }
  chains.delete(from)
  return chains
}

/** The import chains from modules under `from` into modules under `into`. */
function chainsBetween(graph: ReadonlyMap<string, readonly string[]>, from: string, into: string): string[] {
  return [...graph.keys()]
    .filter((module) => module.startsWith(from))
    .flatMap((module) =>
      [...reachable(graph, module)].flatMap(([target, chain]) =>
        target.startsWith(into) ? [chain.join(' → ')] : [],
      ),
    )
}

/** The import cycles among the modules reachable from `start` (each as one chain that closes). */
function cyclesFrom(graph: ReadonlyMap<string, readonly string[]>, start: string): string[] {
  const modules = [start, ...reachable(graph, start).keys()]
  return modules.flatMap((module) =>
    (graph.get(module) ?? []).flatMap((next) => {
      const chain = next === module ? [module] : reachable(graph, next).get(module)
      return chain === undefined ? [] : [[module, ...chain].join(' → ')]
    }),
  )
}

describe("core's import graph", () => {
  const graph = importGraph()

  it('reads the modules it checks', () => {
    // a walk that finds nothing would pass every check below
    expect(graph.get('store/search.ts')).toContain('dialects/dialect.ts')
    expect(chainsBetween(graph, 'store/', 'dialects/').length).toBeGreaterThan(0)
  })

  it('has no import from dialects/ back into store/', () => {
    expect(chainsBetween(graph, 'dialects/', 'store/')).toEqual([])
  })

  it('has no driver importing a dialect, directly or through another module', () => {
    expect(chainsBetween(graph, 'drivers/', 'dialects/')).toEqual([])
    expect(chainsBetween(graph, 'driver.ts', 'dialects/')).toEqual([])
  })

  it('has no module on the search path importing one that imports it back', () => {
    expect(cyclesFrom(graph, 'store/search.ts')).toEqual([])
  })

  it('loads no PostgreSQL schema builder from the main entry: drizzle-orm/pg-core only with the PostgreSQL schema', () => {
    // Node 24 parses drizzle-orm's 180 KB package.json for each of its modules it resolves: pg-core's 29
    // more made `import('@engram/core')` 15% slower there, for SQLite users too.
    const imports = packageImports()
    expect(imports.get('dialects/postgres/schema/columns.ts')).toContain('drizzle-orm/pg-core')
    const loaders = ['index.ts', ...reachable(graph, 'index.ts').keys()].filter((module) =>
      imports.get(module)?.includes('drizzle-orm/pg-core'),
    )
    expect(loaders.map((module) => reachable(graph, 'index.ts').get(module)?.join(' → '))).toEqual([])
  })
})
