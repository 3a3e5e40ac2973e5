/**
 * A work meter for linearity tests: it counts what a function hands to the string, regular-expression, array
 * and JSON built-ins while it runs, in characters or elements examined. The count does not depend on the
 * machine's speed or load, so a test can assert that 8× the input costs about 8× the work (quadratic code
 * costs 64×) without a clock, and cannot flake on a busy machine.
 *
 * How calls are priced: a search (`indexOf`, `includes`, `exec`) by the stretch it scans, from where it starts
 * to the end of its match or of the text; a copy (`slice`, `repeat`, `join`) by what it produces; a whole-text
 * pass (`toLowerCase`, `trim`) by the text; a callback method (`map`, `some`) by the callbacks it makes, so an
 * early exit is priced as one; `charCodeAt` and each step of a string's `for…of` as one. Patching
 * `RegExp.prototype.exec` takes V8 off its regex fast paths, so `replace`, `split`, `match`, `matchAll` and
 * `test` with a regex all go through `exec` and are counted there.
 *
 * What it cannot see: backtracking inside one regex match, and loops that only index (`s[i]`, `a[i]`). Tests
 * cover the first by running adversarial inputs at sizes where super-linear backtracking would not finish
 * (the test's timeout is the guard); the second is rare here, where text is read with `charCodeAt` or `for…of`.
 */

type Method = (this: unknown, ...args: unknown[]) => unknown
type Price = (self: never, args: unknown[], result: never) => number

const indexOfString = String.prototype.indexOf
const indexOfArray = Array.prototype.indexOf
const iterateString = String.prototype[Symbol.iterator]

let units = 0

const size = (value: unknown): number =>
  typeof value === 'string' || Array.isArray(value) ? value.length : 0

/** The stretch a search from `from` examined: up to the end of its match, or to the end. */
function scanned(length: number, found: number, needle: number, from: unknown): number {
  const start = Math.max(0, Math.min(length, Number(from) || 0))
  return (found >= 0 ? found + needle : length) - start + 1
}

const produced: Price = (_self, _args, result) => size(result) + 1
const whole: Price = (self) => size(self) + 1
const one: Price = () => 1
/** With a regex these run `exec`, which is counted; with a string they scan the text. */
const byPattern: Price = (self, args) => (args[0] instanceof RegExp ? 1 : size(self) + 1)

const stringSearch: Price = (self: string, args, result: number | boolean) => {
  const needle = String(args[0])
  const found = typeof result === 'number' ? result : indexOfString.call(self, needle, Number(args[1]) || 0)
  return scanned(self.length, found, needle.length, args[1])
}

const arraySearch: Price = (self: unknown[], args, result: number | boolean) => {
  const found = typeof result === 'number' ? result : indexOfArray.call(self, args[0], Number(args[1]) || 0)
  return scanned(self.length, found, 1, args[1])
}

const STRING: Record<string, Price> = {
  charCodeAt: one,
  codePointAt: one,
  charAt: one,
  at: one,
  indexOf: stringSearch,
  includes: stringSearch,
  lastIndexOf: whole,
  startsWith: (_self, args) => String(args[0]).length + 1,
  endsWith: (_self, args) => String(args[0]).length + 1,
  slice: produced,
  substring: produced,
  substr: produced,
  concat: produced,
  repeat: produced,
  padStart: produced,
  padEnd: produced,
  trim: whole,
  trimStart: whole,
  trimEnd: whole,
  toLowerCase: whole,
  toUpperCase: whole,
  toLocaleLowerCase: whole,
  toLocaleUpperCase: whole,
  normalize: whole,
  localeCompare: whole,
  replace: byPattern,
  replaceAll: byPattern,
  split: byPattern,
  match: one,
  matchAll: one,
  search: one,
}

const ARRAY: Record<string, Price> = {
  indexOf: arraySearch,
  includes: arraySearch,
  lastIndexOf: whole,
  slice: produced,
  splice: (self: unknown[], args) =>
    self.length - Math.min(self.length, Math.max(0, Number(args[0]) || 0)) + 1,
  shift: whole,
  unshift: whole,
  concat: produced,
  join: (_self, _args, result: string) => result.length + 1,
  reverse: whole,
  fill: whole,
  flat: produced,
  sort: (self: unknown[]) => Math.ceil(self.length * Math.log2(self.length + 2)),
  map: one,
  filter: one,
  forEach: one,
  reduce: one,
  reduceRight: one,
  some: one,
  every: one,
  find: one,
  findIndex: one,
  findLast: one,
  findLastIndex: one,
  flatMap: one,
}

/** A callback that counts one unit per call. */
const countingCallback = (callback: Method): Method =>
  function (this: unknown, ...args: unknown[]) {
    units++
    return callback.apply(this, args)
  }

function patch(target: object, name: string, price: Price, undo: (() => void)[]): void {
  const original = (target as Record<string, Method>)[name]
  if (typeof original !== 'function') return
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    // A plain loop: the wrapper must not call the built-ins it patches.
    const counted: unknown[] = []
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]
      counted[i] = typeof arg === 'function' ? countingCallback(arg as Method) : arg
    }
    const result = original.apply(this, counted)
    units += price(this as never, args, result as never)
    return result
  }
  Object.defineProperty(target, name, { value: wrapped, configurable: true, writable: true })
  undo.push(() =>
    Object.defineProperty(target, name, { value: original, configurable: true, writable: true }),
  )
}

function patchAll(): () => void {
  const undo: (() => void)[] = []
  for (const [name, price] of Object.entries(STRING)) patch(String.prototype, name, price, undo)
  for (const [name, price] of Object.entries(ARRAY)) patch(Array.prototype, name, price, undo)
  patch(JSON, 'stringify', produced, undo)
  patch(JSON, 'parse', (_self, args) => size(args[0]) + 1, undo)

  const exec = RegExp.prototype.exec
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    const from = this.global || this.sticky ? this.lastIndex : 0
    const result = exec.call(this, text)
    const length = String(text).length
    if (result) units += result.index + result[0].length - from + 1
    else units += this.sticky ? 1 : length - Math.min(from, length) + 1
    return result
  }
  undo.push(() => {
    RegExp.prototype.exec = exec
  })

  Object.defineProperty(String.prototype, Symbol.iterator, {
    configurable: true,
    writable: true,
    value: function (this: string) {
      const inner = iterateString.call(this)
      return {
        next: () => {
          units++
          return inner.next()
        },
        [Symbol.iterator]() {
          return this
        },
      }
    },
  })
  undo.push(() =>
    Object.defineProperty(String.prototype, Symbol.iterator, {
      value: iterateString,
      configurable: true,
      writable: true,
    }),
  )
  return () => {
    for (let i = undo.length - 1; i >= 0; i--) undo[i]?.()
  }
}

/** The units of work `work` hands to the built-ins while it runs. */
export function countWork(work: () => void): number {
  const restore = patchAll()
  units = 0
  try {
    work()
    return units
  } finally {
    restore()
  }
}

/** As {@link countWork}, for async work: counted until its promise settles (so keep other work out of it). */
export async function countWorkAsync(work: () => Promise<unknown>): Promise<number> {
  const restore = patchAll()
  units = 0
  try {
    await work()
    return units
  } finally {
    restore()
  }
}

/**
 * How much more work `work(size * factor)` hands to the built-ins than `work(size)`: about `factor` when the
 * work is linear, `factor²` when it is quadratic. Counted, not timed, so assert it closely.
 */
export function workGrowth(work: (size: number) => void, size: number, factor = 8): number {
  const small = countWork(() => work(size))
  const large = countWork(() => work(size * factor))
  return large / Math.max(small, 1)
}
