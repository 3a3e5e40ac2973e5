/**
 * The learned layer beside the rules: a logistic regression over hashed character and word n-grams (see
 * features.ts), trained by `packages/agent/scanner/train.ts` on the corpora in `packages/agent/scanner/corpus`
 * and shipped as `scanner-model.json` (int8 weights, base64). Inference is one pass over the features:
 * linear in the text.
 */

import { cuePairs } from './families.ts'
import { FEATURE_BITS, namedBucket, visitNgrams } from './features.ts'
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
export function loadModel(file: ModelFile): LinearModel {
  if (file.bits !== FEATURE_BITS)
    throw new Error(`scanner-model.json has ${file.bits} feature bits, expected ${FEATURE_BITS}`)
  const bytes = Buffer.from(file.weights, 'base64')
  const weights = new Float32Array(1 << FEATURE_BITS)
  for (let i = 0; i < weights.length; i++) weights[i] = (((bytes[i] ?? 0) << 24) >> 24) * file.scale
  return { weights, bias: file.bias, threshold: file.threshold }
}

/** The value of one named feature (a cue group or pair held by a sentence), whatever the text's length. */
const NAMED_VALUE = 0.5

/**
 * The features of folded text as values: n-gram counts scaled by the square root of their total (so length
 * does not decide the score), plus {@link NAMED_VALUE} per named feature. For training; scoring sums as it goes.
 */
export function featureValues(folded: string): Map<number, number> {
  const counts = new Map<number, number>()
  const total = visitNgrams(folded.toLowerCase(), (bucket) =>
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1),
  )
  const norm = 1 / Math.sqrt(Math.max(1, total))
  const values = new Map<number, number>()
  for (const [bucket, count] of counts) values.set(bucket, count * norm)
  for (const name of cuePairs(folded)) {
    const bucket = namedBucket(name)
    values.set(bucket, (values.get(bucket) ?? 0) + NAMED_VALUE)
  }
  return values
}

/** The probability that folded text is hostile. Linear, and builds no map or string. */
export function score(model: LinearModel, folded: string): number {
  const { weights } = model
  let sum = 0
  const total = visitNgrams(folded.toLowerCase(), (bucket) => {
    sum += weights[bucket] as number
  })
  sum /= Math.sqrt(Math.max(1, total))
  for (const name of cuePairs(folded)) sum += (weights[namedBucket(name)] as number) * NAMED_VALUE
  return 1 / (1 + Math.exp(-(sum + model.bias)))
}

/** The (up to) three words or word pairs of folded text whose weights push its score up most. */
export function heaviestWords(model: LinearModel, folded: string): string[] {
  const lower = folded.toLowerCase()
  const pushes = new Map<string, number>()
  visitNgrams(lower, (bucket, from, to) => {
    if (from === undefined || to === undefined || to - from > 30) return
    const weight = model.weights[bucket] as number
    if (weight > 0) pushes.set(lower.slice(from, to), weight)
  })
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
