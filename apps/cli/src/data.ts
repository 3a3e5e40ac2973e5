import { fileURLToPath } from 'node:url'

// This module sits directly in src/, as the bundle's chunks sit directly in dist/, so `../eval/` is the
// package's eval folder both from source and from the build.
/** The folder of the built-in eval conversations (`engram eval --conversation standard`). */
export const BUILT_IN_EVAL_DIR = fileURLToPath(new URL('../eval/', import.meta.url))
