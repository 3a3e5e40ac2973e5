import { sessions } from '../schema/sessions.ts'
import type { Session } from '../types.ts'
import { rowCodec, type SqlRow } from './rows.ts'

const codec = rowCodec<Session>(sessions)

/** Every column of the sessions table, from the schema, for `FROM sessions s`. */
export const SESSION_SELECT = `SELECT ${codec.columns('s')} FROM sessions s`

export type SessionRow = SqlRow

export const decodeSession = codec.decode
