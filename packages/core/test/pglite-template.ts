import { createHash } from 'node:crypto'
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'

/**
 * A new PGlite database for a test, loaded from a data folder that PGlite's own initdb made once on this
 * machine (a tarball from `dumpDataDir`, kept in the temp folder per PGlite build), through PGlite's
 * documented `loadDataDir`. The database is real and empty, exactly as `PGlite.create()` makes it; only
 * initdb, 3-4 s of CPU on a quiet machine and 12 s on a loaded one, is not run again for every test file.
 * The store's migrations still run on it as on any new database.
 */
// Per PGlite build: the resolved module's path names its version (pnpm's store) or its installation.
const build = createHash('sha256')
  .update(import.meta.resolve('@electric-sql/pglite'))
  .digest('hex')
  .slice(0, 16)
const TEMPLATE = join(tmpdir(), `engram-pglite-initdb-${build}.tar`)

async function template(): Promise<Blob> {
  if (!existsSync(TEMPLATE)) {
    const fresh = await PGlite.create()
    const dump = await fresh.dumpDataDir('none')
    await fresh.close()
    // Written whole under another name first: a file that exists is complete, whoever else writes one.
    const partial = `${TEMPLATE}.${process.pid}`
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()))
    renameSync(partial, TEMPLATE)
  }
  return new Blob([readFileSync(TEMPLATE)])
}

/** A new, empty PGlite database (in memory, or in `dataDir`, which must not hold one yet). */
export async function newPglite(dataDir?: string, options: PGliteOptions = {}): Promise<PGlite> {
  const loadDataDir = await template()
  try {
    return await PGlite.create(dataDir, { ...options, loadDataDir })
  } catch (error) {
    // A template another PGlite build left, or a damaged file: made again once (if that fails too, the
    // first error stands).
    rmSync(TEMPLATE, { force: true })
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
    return PGlite.create(dataDir, { ...options, loadDataDir: await template() }).catch(() => {
      throw error
    })
  }
}
