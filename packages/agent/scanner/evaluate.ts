/**
 * Measures the scanner held out by writer: for each writer of `corpus/`, a model trained on the other
 * writers (and the tests' older lists) scans that writer's entries, alone and beside the rules; then the
 * shipped model and rules scan the independent threats-dev list, which nothing here trains or tunes on.
 *
 *   pnpm tsx --conditions=engram-source packages/agent/scanner/evaluate.ts [path/to/threats-dev.json]
 *   pnpm tsx --conditions=engram-source packages/agent/scanner/evaluate.ts --batch new/xa.json,new/xb.json
 *   pnpm tsx --conditions=engram-source packages/agent/scanner/evaluate.ts --thresholds 0.7,0.75,0.8
 *
 * `--thresholds` also scans each held-out writer at those thresholds (the rules and the same model) and
 * prints the pooled figures per threshold at the end: one run instead of one per threshold. Writers given a
 * focused brief (FOCUSED_WRITERS in corpus.ts) are held out in turn too, and pooled apart, one pool per brief.
 * `--batch` measures only the shipped scanner on corpus files it was not trained on (a new batch of
 * writers, before it joins `corpus/`), per writer and pooled, and stops.
 * Prints markdown tables: overall, per family and per language, hostile refused and innocent refused.
 */

import { existsSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { type LinearModel, score, shippedModel } from '../src/security/model.ts'
import { foldForMatching } from '../src/security/normalize.ts'
import { scanWithModel } from '../src/security/threats.ts'
import {
  DEFAULT_TRAINING,
  type Entry,
  FOCUSED_WRITERS,
  fixtureEntries,
  ownEntries,
  readCorpus,
  train,
  writerCorpora,
} from './corpus.ts'

interface Tally {
  hostile: number
  refused: number
  innocent: number
  falsePositives: number
}

const empty = (): Tally => ({ hostile: 0, refused: 0, innocent: 0, falsePositives: 0 })

function count(tallies: Map<string, Tally>, key: string, entry: Entry, refused: boolean) {
  const tally = tallies.get(key) ?? empty()
  if (entry.hostile) {
    tally.hostile++
    if (refused) tally.refused++
  } else {
    tally.innocent++
    if (refused) tally.falsePositives++
  }
  tallies.set(key, tally)
}

const percent = (part: number, whole: number) => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`)
const cell = (tally: Tally) =>
  `${tally.refused}/${tally.hostile} (${percent(tally.refused, tally.hostile)}) | ${tally.falsePositives}/${tally.innocent} (${percent(tally.falsePositives, tally.innocent)})`

interface Result {
  overall: Tally
  family: Map<string, Tally>
  lang: Map<string, Tally>
  lookalike: Tally
  missed: Entry[]
  wrong: Entry[]
}

function measure(entries: Entry[], refuse: (text: string) => boolean): Result {
  const result: Result = {
    overall: empty(),
    family: new Map(),
    lang: new Map(),
    lookalike: empty(),
    missed: [],
    wrong: [],
  }
  const overall = new Map<string, Tally>()
  const lookalike = new Map<string, Tally>()
  for (const entry of entries) {
    const refused = refuse(entry.text)
    count(overall, 'all', entry, refused)
    // Innocent entries are counted under the family they imitate, when the writer named one.
    count(result.family, entry.family, entry, refused)
    count(result.lang, entry.lang, entry, refused)
    if (entry.lookalike) count(lookalike, 'lookalike', entry, refused)
    if (entry.hostile && !refused) result.missed.push(entry)
    if (!entry.hostile && refused) result.wrong.push(entry)
  }
  result.overall = overall.get('all') ?? empty()
  result.lookalike = lookalike.get('lookalike') ?? empty()
  return result
}

function table(title: string, rows: Map<string, Tally>): string {
  const lines = [`| ${title} | hostile refused | innocent refused |`, '| --- | --- | --- |']
  for (const [key, tally] of [...rows].sort(([a], [b]) => a.localeCompare(b)))
    lines.push(`| ${key} | ${cell(tally)} |`)
  return lines.join('\n')
}

function merge(into: Map<string, Tally>, from: Map<string, Tally>) {
  for (const [key, tally] of from) {
    const sum = into.get(key) ?? empty()
    sum.hostile += tally.hostile
    sum.refused += tally.refused
    sum.innocent += tally.innocent
    sum.falsePositives += tally.falsePositives
    into.set(key, sum)
  }
}

/** Rules alone, the learned layer alone (on the text as folded, no decoding), or both as the scanner runs. */
function refuser(mode: (typeof modes)[number], model: LinearModel): (text: string) => boolean {
  if (mode === 'rules') return (text) => !scanWithModel(text, null).ok
  if (mode === 'model') return (text) => score(model, foldForMatching(text)) >= model.threshold
  return (text) => !scanWithModel(text, model).ok
}

const modes = ['rules', 'model', 'both'] as const
const threshold = Number(process.env.SCANNER_THRESHOLD ?? '') || undefined
const verbose = process.argv.includes('--verbose')
const thresholdsAt = process.argv.indexOf('--thresholds')
const sweep =
  thresholdsAt < 0
    ? []
    : (process.argv[thresholdsAt + 1] ?? '').split(',').map((t) => {
        const value = Number(t)
        if (!(value > 0 && value < 1))
          throw new Error(
            `--thresholds ${t}: each threshold is a probability between 0 and 1 (0.7,0.75,0.8).`,
          )
        return value
      })
const swept = new Map(
  sweep.map((t) => [t, { overall: new Map<string, Tally>(), family: new Map<string, Tally>() }]),
)
// threats-dev: the first argument that is neither a flag nor the value of --thresholds (checked before the
// long leave-one-writer-out runs); without one, the shared folder's copy when it is there
const givenDevPath = process.argv
  .slice(2)
  .find((a, i, args) => !a.startsWith('--') && args[i - 1] !== '--thresholds' && args[i - 1] !== '--batch')
if (givenDevPath !== undefined && !existsSync(givenDevPath))
  throw new Error(`${givenDevPath}: no such threats-dev file. Pass the path of threats-dev.json, or none.`)
const devPath = givenDevPath ?? '../shared/data/threats-dev/threats-dev.json'
const batchAt = process.argv.indexOf('--batch')
if (batchAt >= 0) {
  const files = (process.argv[batchAt + 1] ?? '').split(',').filter(Boolean)
  if (files.length === 0)
    throw new Error('--batch needs corpus files, comma-separated: --batch a.json,b.json')
  const shipped = shippedModel()
  const byWriter = files.map((file) => {
    const writer = basename(file).replace(/\.json$/, '')
    return { writer, entries: readCorpus(file, writer) }
  })
  const entries = byWriter.flatMap((corpus) => corpus.entries)
  console.log('## A new batch, the shipped scanner (never trained on it)\n')
  for (const corpus of byWriter)
    console.log(`${corpus.writer}, both: ${cell(measure(corpus.entries, refuser('both', shipped)).overall)}`)
  for (const mode of modes) {
    const result = measure(entries, refuser(mode, shipped))
    console.log(`\n### Pooled: ${mode}: ${cell(result.overall)}\n`)
    if (mode !== 'both') continue
    console.log(table('family', result.family))
    console.log()
    console.log(table('language', result.lang))
    if (verbose) {
      for (const entry of result.missed)
        console.log(`  missed [${entry.family}/${entry.lang}] ${entry.text.slice(0, 160)}`)
      for (const entry of result.wrong)
        console.log(`  refused [${entry.family}/${entry.lang}] ${entry.text.slice(0, 160)}`)
    }
  }
  process.exit(0)
}
const corpora = writerCorpora()
// The fixture lists and the developer's own lists are in every training set, never measured.
const fixtures = [...fixtureEntries(), ...ownEntries()]
type Pool = Record<
  (typeof modes)[number],
  { overall: Map<string, Tally>; family: Map<string, Tally>; lang: Map<string, Tally> }
>
const newPool = () =>
  Object.fromEntries(
    modes.map((m) => [m, { overall: new Map(), family: new Map(), lang: new Map() }]),
  ) as Pool
// The writers of the standard brief, and apart from them those of each focused brief (FOCUSED_WRITERS)
const pooled = newPool()
const pooledFocused = new Map([...new Set(FOCUSED_WRITERS.values())].map((brief) => [brief, newPool()]))

console.log('## Leave one writer out\n')
for (const [writer, test] of corpora) {
  const training = [...fixtures, ...[...corpora].filter(([w]) => w !== writer).flatMap(([, e]) => e)]
  const model = train(training, DEFAULT_TRAINING)
  if (threshold) model.threshold = threshold
  const brief = FOCUSED_WRITERS.get(writer)
  const pool = brief === undefined ? pooled : (pooledFocused.get(brief) as Pool)
  for (const mode of modes) {
    const result = measure(test, refuser(mode, model))
    console.log(
      `${writer} held out, ${mode}: ${cell(result.overall)} (look-alikes ${cell(result.lookalike)})`,
    )
    merge(pool[mode].overall, new Map([['all', result.overall]]))
    merge(pool[mode].family, result.family)
    merge(pool[mode].lang, result.lang)
    if (verbose && mode === 'both') {
      for (const entry of result.missed)
        console.log(`  missed [${entry.family}/${entry.lang}] ${entry.text.slice(0, 160)}`)
      for (const entry of result.wrong)
        console.log(`  refused [${entry.family}/${entry.lang}] ${entry.text.slice(0, 160)}`)
    }
  }
  for (const [t, into] of brief === undefined ? swept : []) {
    const result = measure(test, refuser('both', { ...model, threshold: t }))
    merge(into.overall, new Map([['all', result.overall]]))
    merge(into.family, result.family)
  }
}

for (const [label, pool] of [
  ['the held-out writers', pooled] as const,
  ...[...pooledFocused].map(([brief, pool]) => [`the held-out writers of the ${brief} brief`, pool] as const),
]) {
  if (pool.both.overall.size === 0) continue
  for (const mode of modes) {
    console.log(`\n### Pooled over ${label}: ${mode}\n`)
    console.log(table('overall', pool[mode].overall))
    console.log()
    console.log(table('family', pool[mode].family))
    console.log()
    console.log(table('language', pool[mode].lang))
  }
}

if (swept.size > 0) {
  console.log('\n### Pooled over the held-out writers: both, by threshold\n')
  // each cell is "hostile refused | innocent refused": two columns
  const groups = ['overall', 'deception', 'override', 'impersonation']
  console.log(`| threshold | ${groups.map((g) => `${g}: hostile | ${g}: innocent`).join(' | ')} |`)
  console.log(`| --- |${' --- | --- |'.repeat(groups.length)}`)
  for (const [t, { overall, family }] of swept) {
    const of = (name: string) => cell(family.get(name) ?? empty())
    console.log(
      `| ${t} | ${cell(overall.get('all') ?? empty())} | ${of('deception')} | ${of('override')} | ${of('impersonation')} |`,
    )
  }
}

// The developer's own lists, each held out from a model trained on everything else: not independent (their
// writer knew the scanner), so these figures are a development check, never the held-out result.
if (process.argv.includes('--own')) {
  const own = ownEntries()
  const independent = [...fixtureEntries(), ...[...corpora.values()].flat()]
  console.log("\n## The developer's lists, each held out (not independent)\n")
  for (const writer of new Set(own.map((entry) => entry.writer))) {
    const model = train([...independent, ...own.filter((entry) => entry.writer !== writer)], DEFAULT_TRAINING)
    if (threshold) model.threshold = threshold
    const test = own.filter((entry) => entry.writer === writer)
    for (const mode of modes) {
      const result = measure(test, refuser(mode, model))
      console.log(`${writer} held out, ${mode}: ${cell(result.overall)}`)
      if (mode === 'both') {
        console.log(table('family', result.family))
        console.log(table('language', result.lang))
      }
    }
  }
}

if (existsSync(devPath)) {
  const raw = JSON.parse(readFileSync(devPath, 'utf8'))
  const lang = (text: string) => (/\p{Script=Han}/u.test(text) ? 'zh' : 'en')
  const dev: Entry[] = [
    ...(raw.malicious as string[]).map((text) => ({
      text,
      hostile: true,
      family: 'hostile',
      lang: lang(text),
      lookalike: false,
      writer: 'dev',
    })),
    ...(raw.clean as string[]).map((text) => ({
      text,
      hostile: false,
      family: 'innocent',
      lang: lang(text),
      lookalike: false,
      writer: 'dev',
    })),
  ]
  console.log('\n## threats-dev (never trained or tuned on), the shipped model\n')
  for (const mode of ['rules', 'both'] as const) {
    const result = measure(dev, refuser(mode, shippedModel()))
    console.log(`${mode}: ${cell(result.overall)}`)
    console.log(table('language', result.lang))
  }
}
