import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PACKAGE_NAME = '@engram/core'

/**
 * The folder of @engram/core's package.json: the nearest one above this module that names it (this
 * module's own folder when none does, as in a bundle).
 */
function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  for (let dir = here; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME
    )
      return dir
    if (dirname(dir) === dir) return here
  }
}

/**
 * A migrations folder shipped with this package (`drizzle`, `drizzle-pg`), found from the package's root:
 * the folder itself in the source tree (where drizzle-kit writes it), its copy under `dist/` in the
 * published package (the build copies it there).
 */
export function migrationsFolder(name: 'drizzle' | 'drizzle-pg'): string {
  const root = packageRoot()
  const candidates = [join(root, name), join(root, 'dist', name)]
  // the migrator names the folder in its error when neither holds a journal
  return (
    candidates.find((folder) => existsSync(join(folder, 'meta', '_journal.json'))) ??
    (candidates[1] as string)
  )
}
