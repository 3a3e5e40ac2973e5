/**
 * Trains the scanner's learned layer on every writer of `corpus/` and the tests' older lists, and writes
 * the weights the package ships (`src/security/scanner-model.json`). Deterministic: the same corpora give
 * the same file. threats-dev is never read here.
 *
 *   pnpm tsx --conditions=engram-source packages/agent/scanner/train.ts
 */

import { writeFileSync } from 'node:fs'
import { DEFAULT_TRAINING, fixtureEntries, ownEntries, toModelFile, train, writerCorpora } from './corpus.ts'

const corpora = writerCorpora()
const own = ownEntries()
const entries = [...fixtureEntries(), ...own, ...[...corpora.values()].flat()]
const model = train(entries, DEFAULT_TRAINING)
const hostile = entries.filter((e) => e.hostile).length
const trained = `${new Date().toISOString().slice(0, 10)}: ${entries.length} entries (${hostile} hostile) from ${[...corpora.keys(), 'fixtures', ...new Set(own.map((entry) => entry.writer))].join(', ')}`
const out = new URL('../src/security/scanner-model.json', import.meta.url)
writeFileSync(out, `${JSON.stringify(toModelFile(model, trained), null, 2)}\n`)
console.log(`wrote ${out.pathname}: ${trained}, threshold ${model.threshold}`)
