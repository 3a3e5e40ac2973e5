import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    types: 'src/public-types.ts',
    schema: 'src/schema/index.ts',
    migrator: 'src/migrator.ts',
    testing: 'src/testing/index.ts',
    'drivers/better-sqlite3': 'src/drivers/better-sqlite3.ts',
    'drivers/libsql': 'src/drivers/libsql.ts',
  },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  dts: true,
  sourcemap: true,
  clean: true,
  // The migrations ship inside the package; the top-level drizzle/ folder stays drizzle-kit's source.
  copy: [{ from: '../../drizzle', to: 'dist/drizzle', flatten: false }],
})
