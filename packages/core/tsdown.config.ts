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
  // The migrations ship inside the package; the top-level drizzle/ folder stays drizzle-kit's source.
  copy: [
    { from: '../../drizzle', to: 'dist/drizzle', flatten: false },
    { from: '../../drizzle-pg', to: 'dist/drizzle-pg', flatten: false },
  ],
})
