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
/** A left-to-right or right-to-left mark (not an override or isolate) beside Arabic or Hebrew: how RTL text is written. */
const isMarkInRtlText = (cp: number, before = '', after = '') =>
  (cp === 0x200e || cp === 0x200f || cp === 0x061c) && (RTL_LETTER.test(before) || RTL_LETTER.test(after))
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
 * The first invisible or deceptive character of `text` that no legitimate text needs there, as a reason,
 * or null. Kept: emoji ZWJ sequences (👨‍👩‍👧, 🏳️‍🌈), subdivision flags (🏴 + tags + cancel tag, e.g. the
 * Scotland flag), joiners inside words of scripts that use them (Persian می‌خواهم), one ideographic
 * variation selector after a Chinese character, a byte order mark at the start.
 */
export function findHiddenText(text: string, meter?: WorkMeter): string | null {
  if (meter) meter.chars += text.length
  if (!hasSuspect(text)) return null
  const chars = Array.from(text)
  if (meter) meter.chars += chars.length
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
    if (isTag(cp)) return 'invisible Unicode tag character'
    if (isBidi(cp) && !isMarkInRtlText(cp, chars[i - 1], chars[i + 1]))
      return 'bidirectional override character'
    if (ZERO_WIDTH.has(cp) && !(cp === 0xfeff && i === 0)) return 'invisible zero-width character'
    if (FILLERS.has(cp)) return 'invisible filler character (soft hyphen or Hangul filler)'
    if (cp === 0x200c || cp === 0x200d) {
      const before = chars[i - 1] ?? ''
      const after = chars[i + 1] ?? ''
      const emoji = cp === 0x200d && isEmojiPart(before) && isPictographic(after)
      const script = isJoiningLetter(before) && isJoiningLetter(after)
      if (!emoji && !script) return 'invisible zero-width joiner'
    }
    if (isSupplementaryVariation(cp)) {
      const before = chars[i - 1] ?? ''
      if (!/\p{Script=Han}/u.test(before)) return 'invisible variation selector'
    }
  }
  return null
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
const LOOK_ALIKE = /[\u0250-\u02af\u0370-\u03ff\u0400-\u052f\u0131]/gu
/** Only the Traditional characters the table holds, so other Chinese text costs no call per character. */
const HAN_TRADITIONAL = new RegExp(`[${[...TO_SIMPLIFIED.keys()].join('')}]`, 'gu')
const HAN_SPACES = /(?<=[\p{Script=Han}，、。])[ \t\u3000]+(?=[\p{Script=Han}，、。])/gu
const SPACES = /[ \t\u00a0\u3000]+/g

/** The text the rules match on (see the module comment). Linear; `meter` counts characters visited. */
export function foldForMatching(text: string, meter?: WorkMeter): string {
  const passes: ((input: string) => string)[] = [
    (input) => input.replace(INVISIBLE, ''),
    // Removed after NFKC too: NFKC turns some fillers (U+3164) into other invisible ones.
    (input) => input.normalize('NFKC').replace(INVISIBLE, ''),
    (input) => input.replace(LOOK_ALIKE, (char) => CONFUSABLES[char] ?? char),
    (input) => input.replace(HAN_TRADITIONAL, (char) => TO_SIMPLIFIED.get(char) ?? char),
    (input) => (reaches(input, 0x2e80) ? input.replace(HAN_SPACES, '') : input).replace(SPACES, ' '),
  ]
  let folded = text
  // Text of ASCII alone needs none of the passes but the last.
  for (const pass of reaches(text, 0x80) ? passes : passes.slice(-1)) {
    if (meter) meter.chars += folded.length
    folded = pass(folded)
  }
  return folded
}
