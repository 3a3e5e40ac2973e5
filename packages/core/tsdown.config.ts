import { defineConfig } from 'tsdown'
import { libraryBuild } from '../../tsdown.base.ts'

export default defineConfig({
  ...libraryBuild,
  entry: {
    index: 'src/index.ts',
    types: 'src/public-types.ts',
    schema: 'src/schema/index.ts',
    migrator: 'src/migrator.ts',
    testing: 'src/testing/index.ts',
    'drivers/better-sqlite3': 'src/drivers/better-sqlite3.ts',
    'drivers/libsql': 'src/drivers/libsql.ts',
    'drivers/pg': 'src/drivers/pg.ts',
    'drivers/pglite': 'src/drivers/pglite.ts',
    'postgres/schema': 'src/dialects/postgres/schema/index.ts',
  },
  // The migrations ship inside the package (dist/ is what it publishes); drizzle/ and drizzle-pg/ stay
  // drizzle-kit's source, found by package-folder.ts from the package's root either way.
  copy: [
    // (flatten: false keeps the folder's own name under `to`: dist/drizzle/, dist/drizzle-pg/)
    { from: 'drizzle', to: 'dist', flatten: false },
    { from: 'drizzle-pg', to: 'dist', flatten: false },
  ],
})
