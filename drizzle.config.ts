import { defineConfig } from 'drizzle-kit'

// `drizzle-kit migrate` applies the same folder the runtime migrator reads. Never use `drizzle-kit push`:
// it does not know the FTS5 tables and triggers that live in the custom migrations.
export default defineConfig({
  dialect: 'sqlite',
  schema: './packages/core/src/schema/index.ts',
  out: './packages/core/drizzle',
  dbCredentials: { url: process.env.ENGRAM_DB_PATH ?? './data/engram.db' },
})
