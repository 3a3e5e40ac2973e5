import { validateOn } from './validation.ts'

validateOn('libsql')
