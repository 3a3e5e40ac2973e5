/**
 * The store writes its SQL with SQLite's positional `?` parameters; PostgreSQL numbers them (`$1`, `$2`).
 * This renumbers every `?` outside quoted strings, quoted identifiers, dollar-quoted bodies and comments.
 * One linear pass; the result is cached by SQL text (the store's statements are few and repeat).
 */
const cache = new Map<string, string>()
const MAX_CACHED = 2000

export function numberPlaceholders(sql: string): string {
  const cached = cache.get(sql)
  if (cached !== undefined) return cached
  let out = ''
  let n = 0
  let last = 0
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]
    if (c === '?') {
      out += `${sql.slice(last, i)}$${++n}`
      last = i + 1
    } else if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1)
      i = end < 0 ? sql.length : end
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i)
      i = end < 0 ? sql.length : end
    } else if (c === '$') {
      const tag = /^\$\w*\$/.exec(sql.slice(i, i + 64))?.[0]
      if (tag) {
        const end = sql.indexOf(tag, i + tag.length)
        i = end < 0 ? sql.length : end + tag.length - 1
      }
    }
  }
  const result = out + sql.slice(last)
  if (cache.size < MAX_CACHED) cache.set(sql, result)
  return result
}
