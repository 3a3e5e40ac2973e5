/**
 * The learned layer beside the rules: a logistic regression over hashed character and word n-grams (see
 * features.ts), trained by `packages/agent/scanner/train.ts` on the corpora in `packages/agent/scanner/corpus`
 * and shipped as `scanner-model.json` (int8 weights, base64). Inference is one pass over the features:
 * linear in the text.
 */

import { CUE_GROUP_NAMES, cuePairs } from './families.ts'
import { FEATURE_BITS, namedBucket, ngrams } from './features.ts'
import weightsFile from './scanner-model.json' with { type: 'json' }

/** What `train.ts` writes. */
export interface ModelFile {
  bits: number
  /** A weight is its int8 value times `scale`. */
  scale: number
  bias: number
  /** The probability at and above which an entry is refused. */
  threshold: number
  weights: string
  trained: string
}

export interface LinearModel {
  weights: Float32Array
  bias: number
  threshold: number
}

/** The model as `train.ts` wrote it, decoded into float weights. */
function loadModel(file: ModelFile): LinearModel {
  if (file.bits !== FEATURE_BITS)
    throw new Error(`scanner-model.json has ${file.bits} feature bits, expected ${FEATURE_BITS}`)
  const bytes = Buffer.from(file.weights, 'base64')
  const weights = new Float32Array(1 << FEATURE_BITS)
  for (let i = 0; i < weights.length; i++) weights[i] = (((bytes[i] ?? 0) << 24) >> 24) * file.scale
  return { weights, bias: file.bias, threshold: file.threshold }
}

/** The value of one named feature (a cue group or pair held by a sentence), whatever the text's length. */
const NAMED_VALUE = 0.5

/** Scratch space for counting features: counts per bucket, and the buckets touched, reset after each use. */
const COUNTS = new Uint32Array(1 << FEATURE_BITS)
const TOUCHED = new Uint32Array(1 << FEATURE_BITS)

/** 1 + ln(count), from a table for the counts nearly every feature has. */
const LOG_TABLE = Float64Array.from({ length: 64 }, (_, count) => (count === 0 ? 0 : 1 + Math.log(count)))
const weightOf = (count: number) => (count < 64 ? (LOG_TABLE[count] as number) : 1 + Math.log(count))

/**
 * The n-gram features of folded text with their values: 1 + ln(count), the whole vector scaled to length 1,
 * so neither a long text nor a character repeated a thousand times decides the score; then
 * {@link NAMED_VALUE} per named feature. Linear: one pass, typed arrays, no map. Calls `visit` with each
 * bucket and value, in the order the features were first seen.
 */
function visitValues(folded: string, visit: (bucket: number, value: number) => void): void {
  const { count, buckets } = ngrams(folded.toLowerCase())
  let touched = 0
  for (let i = 0; i < count; i++) {
    const bucket = buckets[i] as number
    if (COUNTS[bucket] === 0) TOUCHED[touched++] = bucket
    COUNTS[bucket] = (COUNTS[bucket] as number) + 1
  }
  let squares = 0
  for (let i = 0; i < touched; i++) squares += weightOf(COUNTS[TOUCHED[i] as number] as number) ** 2
  const norm = 1 / Math.sqrt(Math.max(1, squares))
  for (let i = 0; i < touched; i++) {
    const bucket = TOUCHED[i] as number
    visit(bucket, weightOf(COUNTS[bucket] as number) * norm)
    COUNTS[bucket] = 0
  }
  for (const pair of cuePairs(folded)) visit(pairBucket(pair), NAMED_VALUE)
}

/** The bucket of each cue group and pair of groups (see {@link cuePairs}), by pair index. */
let pairBuckets: Int32Array | undefined
function pairBucket(pair: number): number {
  if (pairBuckets === undefined) {
    const table = new Int32Array(CUE_GROUP_NAMES.length ** 2)
    CUE_GROUP_NAMES.forEach((first, i) => {
      CUE_GROUP_NAMES.forEach((second, j) => {
        table[i * CUE_GROUP_NAMES.length + j] = namedBucket(i === j ? first : `${first}+${second}`)
      })
    })
    pairBuckets = table
  }
  return pairBuckets[pair] as number
}

/** The features of folded text as values (see {@link visitValues}), for training. */
export function featureValues(folded: string): Map<number, number> {
  const values = new Map<number, number>()
  visitValues(folded, (bucket, value) => values.set(bucket, (values.get(bucket) ?? 0) + value))
  return values
}

/** The probability that folded text is hostile. Linear. */
export function score(model: LinearModel, folded: string): number {
  const { weights } = model
  let sum = model.bias
  visitValues(folded, (bucket, value) => {
    sum += (weights[bucket] as number) * value
  })
  return 1 / (1 + Math.exp(-sum))
}

/** The (up to) three words or word pairs of folded text whose weights push its score up most. */
export function heaviestWords(model: LinearModel, folded: string): string[] {
  const lower = folded.toLowerCase()
  const pushes = new Map<string, number>()
  const { count, buckets, from, to } = ngrams(lower)
  for (let i = 0; i < count; i++) {
    const start = from[i] as number
    const end = to[i] as number
    if (start < 0 || end - start > 30) continue
    const weight = model.weights[buckets[i] as number] as number
    if (weight > 0) pushes.set(lower.slice(start, end), weight)
  }
  return [...pushes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([word]) => word)
}

let shipped: LinearModel | undefined
/** The model shipped in the package, decoded on first use. */
export function shippedModel(): LinearModel {
  shipped ??= loadModel(weightsFile as ModelFile)
  return shipped
}
