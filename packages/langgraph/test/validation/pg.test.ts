import { validateOn } from './validation.ts'

validateOn('pg')
