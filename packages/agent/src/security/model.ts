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

/** A weight is `weights[bucket] × scale`: int8, as shipped, so the model a measurement trains is the one it ships. */
export interface LinearModel {
  weights: Int8Array
  scale: number
  bias: number
  threshold: number
}

/** The model as `train.ts` wrote it. */
function loadModel(file: ModelFile): LinearModel {
  if (file.bits !== FEATURE_BITS)
    throw new Error(`scanner-model.json has ${file.bits} feature bits, expected ${FEATURE_BITS}`)
  const bytes = Buffer.from(file.weights, 'base64')
  const weights = new Int8Array(1 << FEATURE_BITS)
  weights.set(new Int8Array(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, weights.length)))
  return { weights, scale: file.scale, bias: file.bias, threshold: file.threshold }
}

/**
 * The value of one named feature (a cue group or pair held by a sentence), whatever the text's length.
 * Chosen leave one writer out over the 39 independent writers (2026-12-03, docs/threat-scanning.md): 0.5
 * 89.2% hostile | 2.3% innocent refused, 0.25 89.7% | 2.1%, 0.125 90.5% | 2.0%, 0 91.3% | 2.3%, 1.0
 * 88.4% | 2.6%. At 0.5 the hand-written cues outweighed what the n-grams learned across writers.
 */
const NAMED_VALUE = 0.125

/**
 * Scratch space for counting features: counts per bucket (saturating at 65,535, far past where
 * 1 + ln(count) changes anything), the buckets touched in the order first seen, and their values (these
 * two as long as the longest text's features, grown when a text needs more).
 */
const COUNTS = new Uint16Array(1 << FEATURE_BITS)
let TOUCHED = new Uint32Array(4096)
let VALUES = new Float64Array(4096)

/** 1 + ln(count), from a table for the counts nearly every feature has. */
const LOG_TABLE = Float64Array.from({ length: 64 }, (_, count) => (count === 0 ? 0 : 1 + Math.log(count)))
const weightOf = (count: number) => (count < 64 ? (LOG_TABLE[count] as number) : 1 + Math.log(count))

/**
 * The features of folded text with their values, in TOUCHED and VALUES; returns how many. The n-grams'
 * values are 1 + ln(count), the whole vector scaled to length 1, so neither a long text nor a character
 * repeated a thousand times decides the score; then {@link NAMED_VALUE} per named feature. Linear: one
 * pass over typed arrays, no map, no callback.
 */
function features(folded: string): number {
  const { count, buckets } = ngrams(folded.toLowerCase())
  const pairs = cuePairs(folded)
  if (TOUCHED.length < count + pairs.length) {
    TOUCHED = new Uint32Array(count + pairs.length)
    VALUES = new Float64Array(count + pairs.length)
  }
  let touched = 0
  for (let i = 0; i < count; i++) {
    const bucket = buckets[i] as number
    const seen = COUNTS[bucket] as number
    if (seen === 0) TOUCHED[touched++] = bucket
    if (seen < 0xffff) COUNTS[bucket] = seen + 1
  }
  let squares = 0
  for (let i = 0; i < touched; i++) {
    const bucket = TOUCHED[i] as number
    const value = weightOf(COUNTS[bucket] as number)
    VALUES[i] = value
    squares += value * value
    COUNTS[bucket] = 0
  }
  const norm = 1 / Math.sqrt(Math.max(1, squares))
  for (let i = 0; i < touched; i++) VALUES[i] = (VALUES[i] as number) * norm
  for (const pair of pairs) {
    TOUCHED[touched] = pairBucket(pair)
    VALUES[touched++] = NAMED_VALUE
  }
  return touched
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

/** The features of folded text as values (see {@link features}), for training. */
export function featureValues(folded: string): Map<number, number> {
  const values = new Map<number, number>()
  const total = features(folded)
  for (let i = 0; i < total; i++) {
    const bucket = TOUCHED[i] as number
    values.set(bucket, (values.get(bucket) ?? 0) + (VALUES[i] as number))
  }
  return values
}

/** The probability that folded text is hostile. Linear. */
export function score(model: LinearModel, folded: string): number {
  const { weights } = model
  const total = features(folded)
  let sum = 0
  for (let i = 0; i < total; i++) sum += (weights[TOUCHED[i] as number] as number) * (VALUES[i] as number)
  return 1 / (1 + Math.exp(-(model.bias + model.scale * sum)))
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
    const weight = (model.weights[buckets[i] as number] as number) * model.scale
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
