/**
 * The learned layer beside the rules: a logistic regression over hashed character and word n-grams (see
 * features.ts), trained by `packages/agent/scanner/train.ts` on the corpora in `packages/agent/scanner/corpus`
 * and shipped as `scanner-model.json` (int8 weights, base64). Inference is one pass over the features:
 * linear in the text.
 */

import { extractFeatures, FEATURE_BITS, type FeatureBag } from './features.ts'
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

/** Feature values: counts scaled by the square root of the total, so length does not decide the score. */
export function featureValues(bag: FeatureBag): Map<number, number> {
  const norm = 1 / Math.sqrt(Math.max(1, bag.total))
  const values = new Map<number, number>()
  for (const [bucket, count] of bag.counts) values.set(bucket, count * norm)
  return values
}

export interface ModelScore {
  probability: number
  /** The words whose weights pushed the score up most, for the refusal's reason. */
  words: string[]
}

export function score(model: LinearModel, text: string): ModelScore {
  const bag = extractFeatures(text)
  let sum = model.bias
  // The three largest pushes, kept in order as they are found (constant work per feature).
  const top: [string, number][] = []
  for (const [bucket, value] of featureValues(bag)) {
    const contribution = (model.weights[bucket] ?? 0) * value
    sum += contribution
    const word = bag.words.get(bucket)
    if (word === undefined || contribution <= 0) continue
    if (top.length < 3 || contribution > (top[2] as [string, number])[1]) {
      top.push([word, contribution])
      top.sort((a, b) => b[1] - a[1])
      if (top.length > 3) top.pop()
    }
  }
  return { probability: 1 / (1 + Math.exp(-sum)), words: top.map(([word]) => word) }
}

let shipped: LinearModel | undefined
/** The model shipped in the package, decoded on first use. */
export function shippedModel(): LinearModel {
  shipped ??= loadModel(weightsFile as ModelFile)
  return shipped
}
