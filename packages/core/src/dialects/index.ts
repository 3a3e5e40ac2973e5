import type { StorageDriver } from '../driver.ts'
import type { Dialect } from './dialect.ts'
import { postgresDialect } from './postgres/index.ts'
import { sqliteDialect } from './sqlite/index.ts'

const DIALECTS = { sqlite: sqliteDialect, postgres: postgresDialect } as const

/** The dialect of the SQL a driver's database speaks (StorageDriver.dialect; SQLite when absent). */
export const dialectOf = (driver: StorageDriver): Dialect => DIALECTS[driver.dialect ?? 'sqlite']
