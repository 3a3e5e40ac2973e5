/**
 * What the threat rules match on: the text as a reader sees it. Invisible characters are found (and
 * reported) on the raw text, then removed, width and compatibility forms are folded by NFKC, Cyrillic and
 * Greek look-alikes become the Latin letters they imitate, Traditional Chinese characters of the rules'
 * vocabulary become Simplified ones, and spaces between two Chinese characters are dropped. Every step is
 * one pass over the text.
 */

/** Work done, in characters visited; tests and benchmarks read it to check that scanning stays linear. */
export interface WorkMeter {
  chars: number
}

/** Whether `text` has a UTF-16 code unit at or above `limit`. */
function reaches(text: string, limit: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= limit) return true
  return false
}
const TAG_CANCEL = 0xe007f
const BLACK_FLAG = 0x1f3f4
const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f
/** Tag letters and digits, the only ones a subdivision flag (🏴 + `gbsct` + cancel tag) uses. */
const isFlagTag = (cp: number) => (cp >= 0xe0061 && cp <= 0xe007a) || (cp >= 0xe0030 && cp <= 0xe0039)
const isPictographic = (char: string) => /\p{Extended_Pictographic}/u.test(char)
const isEmojiPart = (char: string) => isPictographic(char) || /[\u{1f3fb}-\u{1f3ff}\ufe0f\u20e3]/u.test(char)
/** Letters and marks of scripts that join with ZWJ/ZWNJ (Arabic, Persian, Indic, …), not Latin, Greek or Cyrillic. */
const isJoiningLetter = (char: string) =>
  /[\p{L}\p{M}]/u.test(char) &&
  !/[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Han}]/u.test(char)

const ZERO_WIDTH = new Set([0x200b, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x180e, 0x034f])
const FILLERS = new Set([0x00ad, 0x115f, 0x1160, 0x3164, 0xffa0, 0x17b4, 0x17b5])
const isBidi = (cp: number) =>
  (cp >= 0x202a && cp <= 0x202e) ||
  (cp >= 0x2066 && cp <= 0x2069) ||
  cp === 0x061c ||
  cp === 0x200e ||
  cp === 0x200f
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/u
/** How far a direction mark, embedding or isolate may sit from the right-to-left letters it is written for. */
const RTL_REACH = 3
/**
 * A direction mark, embedding or isolate (not an override, U+202D/U+202E, which reverses what it holds)
 * with an Arabic or Hebrew letter within {@link RTL_REACH} characters: how right-to-left text is set inside
 * other text (‫مرحبا‬, ‏«الرمال»‏). Around Latin text an embedding or isolate still counts as hidden.
 */
function isDirectionInRtlText(chars: readonly string[], i: number): boolean {
  const cp = chars[i]?.codePointAt(0)
  if (cp === 0x202d || cp === 0x202e) return false
  for (let j = Math.max(0, i - RTL_REACH); j <= Math.min(chars.length - 1, i + RTL_REACH); j++)
    if (j !== i && RTL_LETTER.test(chars[j] as string)) return true
  return false
}
const isLetter = (char = '') => /\p{L}/u.test(char)
const isSupplementaryVariation = (cp: number) => cp >= 0xe0100 && cp <= 0xe01ef

/**
 * The UTF-16 code units of every character {@link findHiddenText} can object to (the high surrogate of
 * tags and supplementary variation selectors, U+E0000–U+E03FF, stands for them): text without one is clean.
 */
const SUSPECT = new Uint8Array(0x10000)
for (const code of [...ZERO_WIDTH, ...FILLERS, 0x200c, 0x200d, 0xdb40]) SUSPECT[code] = 1
for (let code = 0x2000; code <= 0x206f; code++) if (isBidi(code)) SUSPECT[code] = 1
SUSPECT[0x061c] = 1
function hasSuspect(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (SUSPECT[text.charCodeAt(i)] === 1) return true
  return false
}

/**
 * The first invisible or deceptive character of `text` that no legitimate text needs there, as a reason;
 * `lone` when it is the text's only one and a zero-width character or joiner, which can carry no hidden
 * message (a stray U+200B pasted from a chat, a byte order mark in the middle of a CSV line): the scanner
 * then refuses only if the text reads as an order (see threats.ts). Null when there is none. Kept: emoji ZWJ
 * sequences (👨‍👩‍👧, 🏳️‍🌈), subdivision flags (🏴 + tags + cancel tag, e.g. the Scotland flag), joiners inside
 * words of scripts that use them (Persian می‌خواهم), one ideographic variation selector after a Chinese
 * character, a byte order mark at the start, direction marks, embeddings and isolates written with
 * right-to-left letters, soft hyphens inside words (Netz\u00adleit\u00adstelle, where a line may break).
 */
export function findHiddenText(text: string, meter?: WorkMeter): { reason: string; lone: boolean } | null {
  if (meter) meter.chars += text.length
  if (!hasSuspect(text)) return null
  const chars = Array.from(text)
  if (meter) meter.chars += chars.length
  let zeroWidth: string | null = null
  const found = (reason: string) => ({ reason, lone: false })
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as string
    const cp = char.codePointAt(0) as number
    if (cp < 0xad) continue
    if (cp === BLACK_FLAG) {
      // A subdivision flag: its tags are part of the emoji.
      let j = i + 1
      while (j < chars.length && isFlagTag(chars[j]?.codePointAt(0) as number)) j++
      if (j - i - 1 >= 2 && j - i - 1 <= 8 && chars[j]?.codePointAt(0) === TAG_CANCEL) i = j
      continue
    }
    if (isTag(cp)) return found('invisible Unicode tag character')
    if (isBidi(cp) && !isDirectionInRtlText(chars, i)) return found('bidirectional override character')
    let invisible: string | null = null
    if (ZERO_WIDTH.has(cp) && !(cp === 0xfeff && i === 0)) invisible = 'invisible zero-width character'
    if (FILLERS.has(cp) && !(cp === 0x00ad && isLetter(chars[i - 1]) && isLetter(chars[i + 1])))
      return found('invisible filler character (soft hyphen or Hangul filler)')
    if (cp === 0x200c || cp === 0x200d) {
      const before = chars[i - 1] ?? ''
      const after = chars[i + 1] ?? ''
      const emoji = cp === 0x200d && isEmojiPart(before) && isPictographic(after)
      const script = isJoiningLetter(before) && isJoiningLetter(after)
      if (!emoji && !script) invisible = 'invisible zero-width joiner'
    }
    if (invisible !== null) {
      if (zeroWidth !== null) return found(zeroWidth)
      zeroWidth = invisible
    }
    if (isSupplementaryVariation(cp)) {
      const before = chars[i - 1] ?? ''
      if (!/\p{Script=Han}/u.test(before)) return found('invisible variation selector')
    }
  }
  return zeroWidth === null ? null : { reason: zeroWidth, lone: true }
}

/** Cyrillic and Greek letters that look like Latin ones, folded to them (Unicode confusables, the common ones). */
const CONFUSABLES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  һ: 'h',
  ɡ: 'g',
  ɑ: 'a',
  ı: 'i',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  Ү: 'Y',
  α: 'a',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ϲ: 'c',
  ϳ: 'j',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
}

/** Traditional forms of the characters the Chinese rules use, folded to Simplified. */
const TRADITIONAL =
  '無无視视們们規规則则統统訊讯將将檔档發发傳传讀读執执開开啟启權权級级過过濾滤會会從从號号碼码鑰钥憑凭證证環环內内輸输顯显說说該该設设記记憶忆棄弃繞绕轉转腳脚載载裝装運运員员當当為为這这條条應应聽听頭头戶户對对話话準准審审約约蹤踪註注導导關关閉闭與与於于誤误讓让離离驗验歷历隱隐瞞瞒鬆松觀观資资戲戏樣样刪删個个薦荐賬账帳账訴诉論论謊谎掃扫複复製制優优廢废認认筆笔錄录隨随續续總总絕绝報报單单錢钱鏈链網网頁页庫库檢检測测鍵键匯汇給给寫写確确實实際际變变動动態态護护據据產产務务碼码擬拟紀纪們们時时間间機机構构獲获結结經经遞递並并歸归類类題题'
const TO_SIMPLIFIED = new Map<string, string>()
for (let i = 0; i + 1 < TRADITIONAL.length; i += 2) {
  TO_SIMPLIFIED.set(TRADITIONAL[i] as string, TRADITIONAL[i + 1] as string)
}

const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu
const HAN = /\p{Script=Han}/u

/**
 * Per UTF-16 code unit, what folding does with it: INVISIBLE when it is a default-ignorable code point or
 * the high surrogate of one (U+1BCA0…, U+1D173…, U+E0000–U+E0FFF), HAN for Chinese characters and any
 * high surrogate, CLAUSE for `，、。`, SPACE for the spaces folded into one, and
 * MAPPED when a look-alike or Traditional character becomes another (its replacement in {@link FOLDED}).
 * Built on first use from the same Unicode properties the regular expressions name, in one pass each.
 */
const INVISIBLE_UNIT = 1
const HAN_UNIT = 2
const CLAUSE = 4
const SPACE = 8
const MAPPED = 16
let units: Uint8Array | undefined
const FOLDED = new Uint16Array(0x10000)

function unitTable(): Uint8Array {
  const table = new Uint8Array(0x10000)
  const bmp: string[] = []
  for (let code = 0; code < 0x10000; code++) {
    if (code < 0xd800 || code > 0xdfff) bmp.push(String.fromCharCode(code))
  }
  const all = bmp.join('')
  const mark = (code: number, flag: number) => {
    table[code] = (table[code] as number) | flag
  }
  for (const match of all.matchAll(INVISIBLE)) mark(match[0].charCodeAt(0), INVISIBLE_UNIT)
  for (const match of all.matchAll(/\p{Script=Han}/gu)) mark(match[0].charCodeAt(0), HAN_UNIT)
  // High surrogates of the supplementary default-ignorable code points; any high surrogate may start a
  // supplementary Chinese character (hanAt reads the whole character then).
  for (const high of [0xd82f, 0xd834, 0xdb40, 0xdb41, 0xdb42, 0xdb43]) mark(high, INVISIBLE_UNIT)
  for (let high = 0xd800; high <= 0xdbff; high++) mark(high, HAN_UNIT)
  for (const char of '，、。') mark(char.charCodeAt(0), CLAUSE)
  for (const char of ' \t\u00a0\u3000') mark(char.charCodeAt(0), SPACE)
  for (const [from, to] of [...Object.entries(CONFUSABLES), ...TO_SIMPLIFIED]) {
    mark(from.charCodeAt(0), MAPPED)
    FOLDED[from.charCodeAt(0)] = to.charCodeAt(0)
  }
  return table
}

/** Whether the character starting at `i` is Chinese or `，、。` (a supplementary one read whole). */
function hanAt(text: string, i: number, table: Uint8Array): boolean {
  const flags = table[text.charCodeAt(i)] as number
  if ((flags & CLAUSE) !== 0) return true
  if ((flags & HAN_UNIT) === 0) return false
  const code = text.codePointAt(i) as number
  if (code < 0x10000) return code < 0xd800 || code > 0xdfff
  return HAN.test(String.fromCodePoint(code))
}
/** Whether the character ending at `i` (exclusive) is Chinese or `，、。`. */
function hanBefore(text: string, i: number, table: Uint8Array): boolean {
  if (i === 0) return false
  const low = text.charCodeAt(i - 1)
  const high = i >= 2 ? text.charCodeAt(i - 2) : 0
  if (low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff) return hanAt(text, i - 2, table)
  return hanAt(text, i - 1, table)
}

/**
 * Look-alike and Traditional characters mapped, runs of spaces between Chinese characters dropped, other
 * runs of spaces (and tabs, no-break and ideographic spaces) made one space: one pass over code units.
 */
function mapAndSpace(text: string, table: Uint8Array): string {
  // Unchanged stretches are copied as slices: most characters stay as they are.
  let folded = ''
  let copied = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const flags = table[code] as number
    if ((flags & MAPPED) !== 0) {
      folded += text.slice(copied, i) + String.fromCharCode(FOLDED[code] as number)
      copied = i + 1
      continue
    }
    if ((flags & SPACE) === 0) continue
    let end = i + 1
    let breaking = code === 0xa0
    while (end < text.length && ((table[text.charCodeAt(end)] as number) & SPACE) !== 0) {
      if (text.charCodeAt(end) === 0xa0) breaking = true
      end++
    }
    // Characters folded to Chinese ones (Traditional) were Chinese already: the text as it is decides.
    const kept = breaking || !hanBefore(text, i, table) || end >= text.length || !hanAt(text, end, table)
    if (!(kept && code === 0x20 && end === i + 1)) {
      folded += text.slice(copied, i) + (kept ? ' ' : '')
      copied = end
    }
    i = end - 1
  }
  return copied === 0 ? text : folded + text.slice(copied)
}

/** Whether `text` holds a code unit with one of `flags`. */
function holds(text: string, table: Uint8Array, flags: number): boolean {
  for (let i = 0; i < text.length; i++) if (((table[text.charCodeAt(i)] as number) & flags) !== 0) return true
  return false
}

/** The text the rules match on (see the module comment). Linear; `meter` counts characters visited. */
export function foldForMatching(text: string, meter?: WorkMeter): string {
  if (meter) meter.chars += text.length
  units ??= unitTable()
  const table = units
  // Text of ASCII alone needs only its spaces folded.
  if (!reaches(text, 0x80)) return mapAndSpace(text, table)
  let folded = holds(text, table, INVISIBLE_UNIT) ? text.replace(INVISIBLE, '') : text
  const normal = folded.normalize('NFKC')
  if (meter) meter.chars += 3 * folded.length
  // NFKC turns some fillers (U+3164) into other invisible ones.
  if (normal !== folded && holds(normal, table, INVISIBLE_UNIT)) folded = normal.replace(INVISIBLE, '')
  else folded = normal
  return mapAndSpace(folded, table)
}
