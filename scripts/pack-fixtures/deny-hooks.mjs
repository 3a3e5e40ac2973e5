// Module hooks that refuse the database layer: a package that loads it under these hooks is not pure.
const DENIED = /^(drizzle-orm|better-sqlite3|libsql|@libsql\/)/

export async function resolve(specifier, context, next) {
  if (DENIED.test(specifier)) throw new Error(`denied import of ${specifier} from ${context.parentURL}`)
  return next(specifier, context)
}
