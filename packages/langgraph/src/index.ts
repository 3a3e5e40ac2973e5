export { RRF_K } from './fusion.ts'
export { EngramSaver, type EngramSaverOptions } from './saver.ts'
export {
  type EngramPutOperation,
  EngramStore,
  type EngramStoreOptions,
  type EngramStoreTtl,
} from './store.ts'
