import { validateOn } from './validation.ts'

validateOn('pglite')
