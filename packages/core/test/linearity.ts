/** The best of `runs` timings of `work`, in milliseconds, never under 1 (so a tiny baseline cannot inflate a ratio). */
function bestOf(work: () => void, runs: number): number {
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    work()
    best = Math.min(best, performance.now() - started)
  }
  return Math.max(best, 1)
}

/**
 * How much longer `work(size * factor)` takes than `work(size)`, both measured here, best of three: about
 * `factor` when the work is linear, about `factor²` when it is quadratic. A ratio against a baseline of the
 * same run, so the machine's speed and load cancel out; assert it with a wide margin.
 */
export function growthRatio(work: (size: number) => void, size: number, factor = 8): number {
  work(size) // warm up the JIT and the regex caches
  const small = bestOf(() => work(size), 3)
  const large = bestOf(() => work(size * factor), 3)
  return large / small
}
