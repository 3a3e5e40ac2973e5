/**
 * How EngramStore combines the two rankings of a query when the store has embeddings: reciprocal-rank
 * fusion (Cormack et al., 2009). Each item scores Σ 1 / (K + rank) over the rankings it appears in (rank
 * from 1): full-text (BM25 on SQLite, ts_rank_cd on PostgreSQL) and cosine similarity of its vector to the
 * query's. Ranks, not raw scores, are added, so the two scales never need calibrating; an item first in
 * both rankings scores 2 / (K + 1).
 */
export const RRF_K = 60

/** Fused scores by item id: the sum over rankings of 1 / (RRF_K + rank). */
export function reciprocalRankFusion(rankings: readonly (readonly string[])[]): Map<string, number> {
  const scores = new Map<string, number>()
  for (const ranking of rankings) {
    for (const [index, id] of ranking.entries())
      scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + index + 1))
  }
  return scores
}

/** A vector as the store keeps it: float32, little-endian. */
export function vectorBytes(vector: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4)
  const view = new DataView(bytes.buffer)
  for (const [i, value] of vector.entries()) view.setFloat32(i * 4, value, true)
  return bytes
}

export function bytesVector(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true))
}

/** Cosine similarity of two vectors of one length (0 when either is all zeros). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number
    const y = b[i] as number
    dot += x * y
    na += x * x
    nb += y * y
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}
