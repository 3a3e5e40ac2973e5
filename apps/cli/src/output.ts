import { maskUrl } from '@engram/agent'
import Table from 'cli-table3'
import pc from 'picocolors'
import stringWidth from 'string-width'

export type Colors = ReturnType<typeof pc.createColors>

/**
 * Everything a command reads from and writes to its process: the streams (with whether they are a terminal),
 * the environment and the working folder. bin/engram.js passes the real ones; tests pass their own and run
 * the CLI in-process.
 */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown }
  env: Readonly<Record<string, string | undefined>>
  /** Where relative paths (`--db`, `--config`, files) are resolved and `engram.toml` is looked for. */
  cwd: string
  /** The launcher script that was run (bin/engram.js), for the commands the CLI prints (see cliCommand). */
  launcher?: string
}

/**
 * How a command prints: human text (coloured only on a terminal, never with `NO_COLOR`) or one JSON
 * document on stdout (`--json`). Status and progress go to stderr so that stdout stays clean when piped.
 */
export interface Output {
  readonly json: boolean
  readonly tty: boolean
  readonly color: Colors
  readonly width: number
  line(text?: string): void
  note(text: string): void
  printJson(value: unknown): void
  table(head: string[], rows: string[][], options?: { align?: ('left' | 'right')[] }): void
}

/** Colours follow https://no-color.org: any non-empty NO_COLOR turns them off; so do pipes and TERM=dumb. */
export function colorEnabled(stream: { isTTY?: boolean }, env: Io['env']): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb'
}

const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
}

export function createOutput(io: Io, json: boolean): Output {
  const tty = Boolean(io.stdout.isTTY)
  const color = pc.createColors(colorEnabled(io.stdout, io.env))
  const errColor = pc.createColors(colorEnabled(io.stderr, io.env))
  return {
    json,
    tty,
    color,
    width: io.stdout.columns ?? 100,
    line: (text = '') => io.stdout.write(`${text}\n`),
    note: (text) => io.stderr.write(`${errColor.dim(text)}\n`),
    printJson: (value) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    table(head, rows, options = {}) {
      const table = new Table({
        head: head.map((h) => color.bold(h)),
        chars: NO_BORDERS,
        style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
        colAligns: options.align ?? [],
      })
      table.push(...rows)
      for (const line of table.toString().split('\n')) io.stdout.write(`${line.trimEnd()}\n`)
    },
  }
}

const segmenter = new Intl.Segmenter()

/**
 * `text` on one line, cut to at most `width` terminal columns (CJK characters take two) with an ellipsis.
 * Linear in the length of the text.
 */
export function fit(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  if (stringWidth(flat) <= width) return flat
  let used = 0
  let cut = ''
  for (const { segment } of segmenter.segment(flat)) {
    const w = stringWidth(segment)
    if (used + w > width - 1) break
    cut += segment
    used += w
  }
  return `${cut}…`
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
]
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' })

/** "just now", "5 minutes ago", "yesterday", "3 weeks ago". */
export function relativeTime(at: number, now = Date.now()): string {
  const delta = at - now
  for (const [unit, ms] of UNITS) {
    if (Math.abs(delta) >= ms) return relative.format(Math.round(delta / ms), unit)
  }
  return 'just now'
}

export const formatInt = (n: number) => n.toLocaleString('en-US')

export function formatCost(usd: number): string {
  return usd === 0 ? '—' : `$${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`
}

/** How many characters of an id `engram sessions` shows at least (a UUID's first group). */
const SHORT_ID = 8

/**
 * Shortens ids to one length, at least 8 characters, long enough that the ids shown together stay
 * distinct (Hermes ids all start with the same date): the shortest prefix any of them can be given back
 * as. Sorting puts the ids that share the longest prefix side by side.
 */
export function shortIds(ids: readonly string[]): (id: string) => string {
  const sorted = [...new Set(ids)].sort()
  let length = SHORT_ID
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1] as string
    const b = sorted[i] as string
    let common = 0
    while (common < a.length && a[common] === b[common]) common++
    length = Math.max(length, common + 1)
  }
  return (id) => id.slice(0, length)
}

export const shortId = shortIds([])

/** A search snippet with its «matches» emphasised (on a terminal) and the marks removed. */
export function highlight(snippet: string, color: Colors): string {
  return snippet.replace(/«([^«»]*)»/g, (_match, word: string) => color.bold(color.yellow(word)))
}

/** `word` as one shell word: as it is when it is safe, else single-quoted (a printed command runs as shown). */
export const shellWord = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`

/**
 * True when `word`, quoted by shellWord, can be pasted into a terminal and run as shown: no control
 * character (a terminal acts on those, and an escape can end a bracketed paste and run the rest), no
 * invisible formatting or separator character (the command would read differently from what runs), no lone
 * surrogate (a clipboard cannot carry it).
 */
export const pastable = (word: string) => !/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u.test(word)

/** The environment variable the CLI reads the database from when there is no `--db`. */
export const DATABASE_VARIABLE = 'ENGRAM_DB_URL'

/**
 * The words `--db <database>` of a printed command: the url or path as one shell word, or, when it carries a
 * secret (a password, a token, anything maskUrl hides), `"$ENGRAM_DB_URL"`, so no secret is printed, shown
 * on a page or copied; the caller shows maskUrl(url) beside it.
 */
export function databaseWords(url: string): string {
  if (maskUrl(url) !== url) return `--db "$${DATABASE_VARIABLE}"`
  return url.startsWith('-') ? shellWord(`--db=${url}`) : `--db ${shellWord(url)}`
}
