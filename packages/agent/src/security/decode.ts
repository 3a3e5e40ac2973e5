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

const utf8 = new TextDecoder('utf-8', { fatal: true })
const utf16 = new TextDecoder('utf-16le', { fatal: true })

/** Readable: no control characters, no unassigned or private code points, and mostly letters and spaces. */
function readable(text: string): boolean {
  if (text.length < 4 || /[\p{Cc}\p{Cn}\p{Co}\ufffd]/u.test(text.replace(/[\t\n\r]/g, ''))) return false
  const letters = text.match(/[\p{L}\s]/gu)?.length ?? 0
  return letters >= text.length * 0.6
}

function bytesToText(bytes: Uint8Array): string | null {
  // Encoded PowerShell commands are UTF-16LE: every other byte is zero.
  let zeros = 0
  for (let i = 1; i < bytes.length; i += 2) if (bytes[i] === 0) zeros++
  const decoder = bytes.length >= 4 && zeros * 2 >= bytes.length * 0.9 ? utf16 : utf8
  try {
    const text = decoder.decode(bytes)
    return readable(text) ? text : null
  } catch {
    return null
  }
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g
const HEX_RUN = /(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])/g
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g
const ENTITY = /&#(\d{1,7});|&#x([0-9A-Fa-f]{1,6});|&(lt|gt|amp|quot|apos|nbsp);/gi
const ESCAPE = /\\u([0-9A-Fa-f]{4})|\\x([0-9A-Fa-f]{2})/g
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' }

const fromCodePoint = (code: number) => (code <= 0x10ffff ? String.fromCodePoint(code) : '')

function decodeRuns(text: string, run: RegExp, toBytes: (match: string) => Uint8Array): string | null {
  const found: string[] = []
  for (const match of text.matchAll(run)) {
    const decoded = bytesToText(toBytes(match[0]))
    if (decoded) found.push(decoded)
  }
  return found.length > 0 ? found.join('\n') : null
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
  let out = ''
  for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode(...codes.subarray(i, i + 8192))
  return out
}
const COMMON =
  /\b(?:the|and|you|your|to|of|all|is|are|this|that|for|with|from|now|must|always|never|every|send|run|ignore|instructions|rules|memory|user|system|previous|any|it|in|on|be|do|not)\b/gi
const commonWords = (text: string) => text.match(COMMON)?.length ?? 0

/**
 * ROT13, kept when the text names it or when the rotated text reads as more English than the text itself
 * (so plain English is not rotated into a second, meaningless layer).
 */
function decodeRot13(text: string): string | null {
  if (!/[A-Za-z]{3}/.test(text)) return null
  const rotated = rot13(text)
  if (/\brot-?13\b/i.test(text)) return rotated
  const gain = commonWords(rotated) - commonWords(text)
  return gain >= 3 ? rotated : null
}

const DECODERS: Record<string, (text: string) => string | null> = {
  ROT13: decodeRot13,
  base64: (text) =>
    decodeRuns(text, BASE64_RUN, (run) => Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64')),
  hex: (text) => decodeRuns(text, HEX_RUN, (run) => Buffer.from(run, 'hex')),
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

/** Every readable decoding of `text`, one layer deep (the caller decodes layers again, to a fixed depth). */
export function decodeLayers(text: string, meter?: WorkMeter): DecodedLayer[] {
  const layers: DecodedLayer[] = []
  for (const [encoding, decode] of Object.entries(DECODERS)) {
    if (meter) meter.chars += text.length
    const decoded = decode(text)
    if (decoded !== null) layers.push({ encoding, text: decoded })
  }
  return layers
}
