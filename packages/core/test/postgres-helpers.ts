import { createHash } from 'node:crypto'

/** Each database path of the contract is a schema of its own on one server (or one PGlite). */
export const schemaOf = (path: string) => `c_${createHash('sha1').update(path).digest('hex').slice(0, 24)}`
