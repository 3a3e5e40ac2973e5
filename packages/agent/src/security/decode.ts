/**
 * Obvious encodings a payload hides behind (base64, hex, percent-encoding, HTML entities, `\u` escapes),
 * decoded so the rules can read what they say. Only decodings that give readable text are kept, so a hash,
 * a UUID or a long identifier is not taken for a message. One pass per encoding, linear in the text.
 */

import type { WorkMeter } from './normalize.ts'

/** Text found inside `encoding`, to be scanned like the text it came from. */
export interface DecodedLayer {
  encoding: string
  text: string
}

// Not fatal: a malformed sequence becomes U+FFFD, which `readable` refuses (no exception to pay for).
const utf8 = new TextDecoder('utf-8')
const utf16 = new TextDecoder('utf-16le')

/** Readable: no control characters, no unassigned or private code points, and mostly letters and spaces. */
function readable(text: string): boolean {
  if (text.length < 4 || /[\p{Cc}\p{Cn}\p{Co}\ufffd]/u.test(text.replace(/[\t\n\r]/g, ''))) return false
  const letters = text.match(/[\p{L}\s]/gu)?.length ?? 0
  // A command line (`wget -qO- http://…|sh`) is mostly punctuation; random bytes are almost never all
  // printable ASCII (16 of them by chance: about 1 in 10^7), so printable ASCII needs fewer letters.
  return letters >= text.length * (PRINTABLE_ASCII.test(text) ? 0.35 : 0.6)
}
const PRINTABLE_ASCII = /^[\x20-\x7e\t\n\r]*$/

function bytesToText(bytes: Uint8Array): string | null {
  // Encoded PowerShell commands are UTF-16LE: every other byte is zero.
  let zeros = 0
  for (let i = 1; i < bytes.length; i += 2) if (bytes[i] === 0) zeros++
  const decoder = bytes.length >= 4 && zeros * 2 >= bytes.length * 0.9 ? utf16 : utf8
  const text = decoder.decode(bytes)
  return readable(text) ? text : null
}

/** Per ASCII code: BASE64 when base64 (standard or URL-safe) uses it, HEX when it is a hex digit. */
const BASE64 = 1
const HEX = 2
const CLASSES = new Uint8Array(128)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') {
  CLASSES[char.charCodeAt(0)] = BASE64
}
for (const char of '0123456789ABCDEFabcdef') {
  const code = char.charCodeAt(0)
  CLASSES[code] = (CLASSES[code] as number) | HEX
}

/**
 * The maximal runs of characters of `kind`, at least `min` long, with up to `maxTail` `=` after each taken
 * into the run. One pass, no backtracking.
 */
function runs(text: string, kind: number, min: number, maxTail = 0): string[] {
  const found: string[] = []
  let start = -1
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0
    if (code < 128 && ((CLASSES[code] as number) & kind) !== 0) {
      if (start < 0) start = i
      continue
    }
    if (start >= 0 && i - start >= min) {
      let end = i
      while (end - i < maxTail && text.charCodeAt(end) === 0x3d) end++
      found.push(text.slice(start, end))
    }
    start = -1
  }
  return found
}

/** Base64 runs of at least 16 characters, with their padding. */
const base64Runs = (text: string) => runs(text, BASE64, 16, 2)
/** Hex runs of at least 16 digits, whole (an odd run is not bytes). */
const hexRuns = (text: string) => runs(text, HEX, 16).filter((run) => run.length % 2 === 0)
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g
const ENTITY = /&#(\d{1,7});|&#x([0-9A-Fa-f]{1,6});|&(lt|gt|amp|quot|apos|nbsp);/gi
const ESCAPE = /\\u([0-9A-Fa-f]{4})|\\x([0-9A-Fa-f]{2})/g
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' }

const fromCodePoint = (code: number) => (code <= 0x10ffff ? String.fromCodePoint(code) : '')

function decodeRuns(found: string[], toBytes: (run: string) => Uint8Array): string | null {
  const decoded: string[] = []
  for (const run of found) {
    const text = bytesToText(toBytes(run))
    if (text) decoded.push(text)
  }
  return decoded.length > 0 ? decoded.join('\n') : null
}

function replaced(text: string, pattern: RegExp, replace: (match: string, ...groups: string[]) => string) {
  const result = text.replace(pattern, replace)
  return result === text ? null : result
}

/** ROT13 of ASCII letters, everything else as it is. */
function rot13(text: string): string {
  const codes = new Uint16Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const base = code >= 65 && code <= 90 ? 65 : code >= 97 && code <= 122 ? 97 : 0
    codes[i] = base === 0 ? code : ((code - base + 13) % 26) + base
  }
  // `apply` on a typed array: spreading one goes through its iterator, several times slower.
  let out = ''
  for (let i = 0; i < codes.length; i += 8192) {
    out += String.fromCharCode.apply(null, codes.subarray(i, i + 8192) as unknown as number[])
  }
  return out
}
const COMMON = [
  'the',
  'and',
  'you',
  'your',
  'to',
  'of',
  'all',
  'is',
  'are',
  'this',
  'that',
  'for',
  'with',
  'from',
  'now',
  'must',
  'always',
  'never',
  'every',
  'send',
  'run',
  'ignore',
  'instructions',
  'rules',
  'memory',
  'user',
  'system',
  'previous',
  'any',
  'it',
  'in',
  'on',
  'be',
  'do',
  'not',
]
/** A code unit of a regular expression's word (`\w`): ASCII letters, digits and `_`. */
const isWordUnit = (code: number) =>
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x30 && code <= 0x39) ||
  code === 0x5f
/** FNV-1a of a word's code units, lower-cased (ASCII), as it is read. */
const wordHash = (hash: number, code: number) =>
  Math.imul(hash ^ (code >= 0x41 && code <= 0x5a ? code | 0x20 : code), 0x01000193)
const hashOf = (word: string) =>
  [...word].reduce((hash, char) => wordHash(hash, char.charCodeAt(0)), 0x811c9dc5)
/** Per hash: +1 for a rotated common word, -1 for a common word (none is both), and the word to confirm it. */
const GAIN_BY_HASH = new Map<number, readonly [number, string]>([
  ...COMMON.map((word) => [hashOf(word), [-1, word]] as const),
  ...COMMON.map((word) => [hashOf(rot13(word)), [1, rot13(word)]] as const),
])

/**
 * How many more common English words the text holds once rotated than as it is: whole words (maximal runs
 * of `\w`), in either case. No rotation and no string per word: each is hashed as it is read, and only a
 * hash of a common word is confirmed by comparing the word.
 */
function rot13Gain(text: string): number {
  let gain = 0
  for (let i = 0; i < text.length; ) {
    if (!isWordUnit(text.charCodeAt(i))) {
      i++
      continue
    }
    let end = i
    let hash = 0x811c9dc5
    for (; end < text.length && isWordUnit(text.charCodeAt(end)); end++) {
      hash = wordHash(hash, text.charCodeAt(end))
    }
    const found = GAIN_BY_HASH.get(hash)
    if (found !== undefined && text.slice(i, end).toLowerCase() === found[1]) gain += found[0]
    i = end
  }
  return gain
}

/**
 * ROT13, kept when the text names it or when the rotated text reads as more English than the text itself
 * (so plain English is not rotated into a second, meaningless layer).
 */
function decodeRot13(text: string, named: boolean): string | null {
  if (!/[A-Za-z]{3}/.test(text)) return null
  if (named || namesRot13(text) || rot13Gain(text) >= 3) return rot13(text)
  return null
}

/** Whether a text says ROT13 is used (then it, and what is decoded from it, is rotated whatever it holds). */
export const namesRot13 = (text: string) => /\brot-?13\b/i.test(text)

const DECODERS: Record<string, (text: string, rot13Named: boolean) => string | null> = {
  ROT13: decodeRot13,
  base64: (text) =>
    decodeRuns(base64Runs(text), (run) => Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64')),
  hex: (text) => decodeRuns(hexRuns(text), (run) => Buffer.from(run, 'hex')),
  'percent-encoding': (text) =>
    replaced(text, PERCENT_RUN, (run) => bytesToText(Buffer.from(run.replace(/%/g, ''), 'hex')) ?? run),
  'HTML entities': (text) =>
    replaced(text, ENTITY, (match, dec, hex, name) => {
      if (dec) return fromCodePoint(Number(dec))
      if (hex) return fromCodePoint(Number.parseInt(hex, 16))
      return NAMED[(name as string).toLowerCase()] ?? match
    }),
  'escape sequences': (text) =>
    replaced(text, ESCAPE, (_, u, x) => String.fromCharCode(Number.parseInt((u ?? x) as string, 16))),
}

/**
 * Every readable decoding of `text`, one layer deep (the caller decodes layers again, to a fixed depth).
 * `rot13Named`: the text, or one it was decoded from, says ROT13 is used.
 */
export function decodeLayers(text: string, meter?: WorkMeter, rot13Named = namesRot13(text)): DecodedLayer[] {
  const layers: DecodedLayer[] = []
  for (const [encoding, decode] of Object.entries(DECODERS)) {
    if (meter) meter.chars += text.length
    const decoded = decode(text, rot13Named)
    if (decoded !== null) layers.push({ encoding, text: decoded })
  }
  return layers
}
