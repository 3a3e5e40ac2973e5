/**
 * The scanner's corpora and the training of its learned layer, shared by train.ts and evaluate.ts.
 *
 * A corpus file is `{ writer, entries: [{ text, label: 'hostile' | 'innocent', family, lang, lookalike }] }`,
 * written by someone who saw neither the scanner nor the other writers (see docs/threat-scanning.md).
 */

import { readdirSync, readFileSync } from 'node:fs'
import { FEATURE_BITS } from '../src/security/features.ts'
import { featureValues, type LinearModel, type ModelFile } from '../src/security/model.ts'
import { foldForMatching } from '../src/security/normalize.ts'

export interface Entry {
  text: string
  hostile: boolean
  family: string
  lang: string
  lookalike: boolean
  writer: string
}

interface CorpusFile {
  writer?: string
  /** false for a list written by someone who saw the scanner: it trains, it is never held out and measured. */
  independent?: boolean
  entries: { text: string; label: string; family?: string; lang?: string; lookalike?: boolean }[]
}

const CORPUS_DIR = new URL('./corpus/', import.meta.url)

/** Every entry of one corpus file, the writer named by the file when it does not name itself. */
export function readCorpus(path: string | URL, writer: string): Entry[] {
  const file = JSON.parse(readFileSync(path, 'utf8')) as CorpusFile
  return file.entries.map((entry) => {
    if (entry.label !== 'hostile' && entry.label !== 'innocent') {
      throw new Error(
        `${String(path)}: label must be hostile or innocent, got ${JSON.stringify(entry.label)}`,
      )
    }
    return {
      text: entry.text,
      hostile: entry.label === 'hostile',
      family: entry.family ?? (entry.label === 'hostile' ? 'unknown' : 'innocent'),
      lang: entry.lang ?? 'unknown',
      lookalike: entry.lookalike === true,
      writer,
    }
  })
}

/** The corpus files of `corpus/` whose `independent` flag is `independent`, by writer. */
function corporaWhere(independent: boolean): Map<string, Entry[]> {
  const byWriter = new Map<string, Entry[]>()
  for (const name of readdirSync(CORPUS_DIR)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const path = new URL(name, CORPUS_DIR)
    if (((JSON.parse(readFileSync(path, 'utf8')) as CorpusFile).independent ?? true) !== independent) continue
    const writer = name.replace(/\.json$/, '')
    byWriter.set(writer, readCorpus(path, writer))
  }
  return byWriter
}

/**
 * Independent writers given a focused brief, by the brief's name (docs/threat-scanning.md): `deception`, one
 * family only (rounds 13 and 16); `pairs`, contrastive pairs of an innocent and a hostile note on one topic
 * (round 15: measured, not shipped; their lists stay outside `corpus/` and count only when put there). Held out
 * like the others, but pooled apart by `evaluate.ts`, one pool per brief, so that the pooled figures of
 * the writers of the standard brief stay comparable from round to round.
 */
export const FOCUSED_WRITERS: ReadonlyMap<string, string> = new Map([
  ...['ub', 'uc', 'ud', 'ue', 'uf', 'ug', 'uh', 'ui', 'vy', 'vz', 'ta', 'tb'].map(
    (writer) => [writer, 'deception'] as const,
  ),
  ...['va', 'vb', 'vc', 'vd', 've', 'vf', 'vg', 'vh'].map((writer) => [writer, 'pairs'] as const),
])

export const writerCorpora = () => corporaWhere(true)

/** Lists written by the scanner's developer (`"independent": false`): always in training, never measured. */
export const ownEntries = (): Entry[] => [...corporaWhere(false).values()].flat()

/** The older EN/ZH payload lists of the tests, as one more (small) training writer. */
export function fixtureEntries(): Entry[] {
  const entries: Entry[] = []
  for (const name of ['threat-payloads', 'threat-tuning', 'threat-heldout']) {
    const raw = JSON.parse(readFileSync(new URL(`../test/fixtures/${name}.json`, import.meta.url), 'utf8'))
    const hostile: string[] = raw.malicious ?? raw.hostile
    for (const [texts, isHostile] of [
      [hostile, true],
      [raw.innocent as string[], false],
    ] as const) {
      for (const text of texts) {
        entries.push({
          text,
          hostile: isHostile,
          family: isHostile ? 'unknown' : 'innocent',
          lang: /\p{Script=Han}/u.test(text) ? 'zh' : 'en',
          lookalike: false,
          writer: 'fixtures',
        })
      }
    }
  }
  return entries
}

interface Example {
  values: Map<number, number>
  label: 0 | 1
  /** How much this example's error counts (its family's weight, see TrainOptions.familyWeights). */
  weight: number
}

const examplesOf = (entries: Entry[], familyWeights: TrainOptions['familyWeights']): Example[] =>
  entries.map((entry) => ({
    values: featureValues(foldForMatching(entry.text)),
    label: entry.hostile ? 1 : 0,
    weight: familyWeights[entry.family] ?? 1,
  }))

export interface TrainOptions {
  epochs: number
  /** L2 strength per example step. */
  l2: number
  rate: number
  /**
   * The weight of a family's entries in training, 1 when not named: its hostile entries and the innocent
   * look-alikes that imitate it alike, so that the weight moves the model's effort to that family's
   * boundary rather than the threshold.
   */
  familyWeights: Readonly<Record<string, number>>
}

/**
 * Deception weighs three times: the weakest family in every measurement. Round 11 chose 2 leave one writer
 * out over the 69 writers of round 10 (2026-12-05, docs/threat-scanning.md), at the shipped threshold:
 * weight 1 93.5% hostile | 1.8% innocent refused (deception 84.0%), 2 94.3% | 1.9% (87.4%), 3 94.5% | 2.0%
 * (88.4%). Round 16, over the 133 writers of the standard brief at 0.7: 2 96.3% | 1.5% (deception 92.4%),
 * 3 96.5% | 1.6% (93.3%), the same hostile share at the same innocent one overall (2 at 0.65–0.7 passes
 * through 96.5% | 1.6%) with deception a point higher, and the deception brief's writers 83.2% → 84.9% at
 * 4.7% of their innocent entries either way.
 */
export const DEFAULT_TRAINING: TrainOptions = {
  epochs: 40,
  l2: 1e-4,
  rate: 0.5,
  familyWeights: { deception: 3 },
}

/**
 * The probability at and above which the learned layer refuses: chosen on the leave-one-writer-out runs
 * of the independent writers as the lowest at which the rules and the model together refuse under 2% of
 * their innocent entries, a point under the 3% goal, since new writers have read up to 1–1.5 points above
 * these runs (round 8, 49 writers: 0.8 refuses 1.6%, 0.75 1.9%, 0.7 2.3%; round 4 chose 0.8, round 8
 * 0.75). Round 15 (2026-12-05, 109 writers of the standard brief, with the intent floor of threats.ts):
 * 0.65 refuses 96.4% of hostile and 1.9% of innocent entries, at the rule's edge, 0.7 95.7% | 1.6%, 0.75
 * 94.8% | 1.3% (docs/threat-scanning.md): 0.7. Never chosen on threats-dev or the lead's held-out list.
 */
const THRESHOLD = 0.7

/**
 * Logistic regression by AdaGrad over the hashed features, both classes weighted equally whatever their
 * counts, each example's error times its family's weight. Deterministic: examples are visited in an order
 * shuffled by a fixed seed.
 */
export function train(entries: Entry[], options: TrainOptions = DEFAULT_TRAINING): LinearModel {
  const examples = examplesOf(entries, options.familyWeights)
  const size = 1 << FEATURE_BITS
  const weights = new Float32Array(size)
  const squares = new Float32Array(size).fill(1e-8)
  let bias = 0
  let biasSquares = 1e-8
  const positives = examples.filter((e) => e.label === 1).length
  const classWeight = [
    examples.length / (2 * (examples.length - positives)),
    examples.length / (2 * positives),
  ]
  let seed = 12345
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed / 2 ** 32
  }
  const order = examples.map((_, i) => i)
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[order[i], order[j]] = [order[j] as number, order[i] as number]
    }
    for (const index of order) {
      const example = examples[index] as Example
      let sum = bias
      for (const [bucket, value] of example.values) sum += (weights[bucket] as number) * value
      const p = 1 / (1 + Math.exp(-sum))
      const error = (p - example.label) * (classWeight[example.label] as number) * example.weight
      for (const [bucket, value] of example.values) {
        const gradient = error * value + options.l2 * (weights[bucket] as number)
        squares[bucket] = (squares[bucket] as number) + gradient * gradient
        weights[bucket] =
          (weights[bucket] as number) - (options.rate * gradient) / Math.sqrt(squares[bucket] as number)
      }
      biasSquares += error * error
      bias -= (options.rate * error) / Math.sqrt(biasSquares)
    }
  }
  return { ...quantized(weights), bias, threshold: THRESHOLD }
}

/** int8 weights with one scale, as the package ships them. */
function quantized(weights: Float32Array): { weights: Int8Array; scale: number } {
  let max = 0
  for (const weight of weights) max = Math.max(max, Math.abs(weight))
  const scale = max / 127 || 1
  return { weights: Int8Array.from(weights, (weight) => Math.round(weight / scale)), scale }
}

/** The model as the package ships it: int8 weights with one scale, base64. */
export function toModelFile(model: LinearModel, trained: string): ModelFile {
  return {
    bits: FEATURE_BITS,
    scale: model.scale,
    bias: model.bias,
    threshold: model.threshold,
    weights: Buffer.from(model.weights.buffer, model.weights.byteOffset, model.weights.length).toString(
      'base64',
    ),
    trained,
  }
}
