import { validateOn } from './validation.ts'

validateOn('better-sqlite3')
