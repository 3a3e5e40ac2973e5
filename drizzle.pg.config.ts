import { defineConfig } from 'drizzle-kit'

// The PostgreSQL dialect's migrations: `drizzle-kit generate --config drizzle.pg.config.ts` writes them and
// `drizzle-kit migrate --config drizzle.pg.config.ts` applies the same folder the store's migrator reads,
// recording them in the same table. ENGRAM_PG_SCHEMA names the schema (default public).
const schema = process.env.ENGRAM_PG_SCHEMA ?? 'public'

export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/core/src/dialects/postgres/schema/index.ts',
  out: './packages/core/drizzle-pg',
  dbCredentials: { url: process.env.ENGRAM_DATABASE_URL ?? 'postgres://localhost:5432/engram' },
  schemaFilter: [schema],
  migrations: { table: '__drizzle_migrations', schema },
})
