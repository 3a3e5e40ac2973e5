/**
 * Words a question is made of, beyond the stop-words of stopwords.ts: interrogatives and auxiliaries
 * that the conversational ranking drops before matching ("how long has …", "什么时候 …", "… 多久").
 * Deliberately small: a long generic list drops content words and costs recall.
 */

const ENGLISH_QUESTION_WORDS: ReadonlySet<string> = new Set('happen happened happening long ever'.split(' '))

/** Chinese question words, longest first so 多长时间 is removed before 时间 could be considered. */
const CJK_QUESTION_WORDS: readonly string[] = [
  '什么时候',
  '多长时间',
  '怎么样',
  '哪一天',
  '多久',
  '哪天',
  '几号',
  '几点',
  '时候',
  '怎么',
  '什么',
  '哪里',
  '哪儿',
  '哪个',
  '为什么',
  '有没有',
  '是不是',
  '了吗',
  '吗',
  '呢',
]

const WORD = /[\p{L}\p{N}'’]+/gu

/**
 * The query with its question words blanked out (replaced by spaces, so CJK runs split there), or the
 * query unchanged when nothing else would remain. Linear in the query's length.
 */
export function stripQuestionWords(query: string): string {
  let out = query.replace(WORD, (word) => (ENGLISH_QUESTION_WORDS.has(word.toLowerCase()) ? ' ' : word))
  for (const word of CJK_QUESTION_WORDS) out = out.replaceAll(word, ' ')
  return /[\p{L}\p{N}]/u.test(out) ? out : query
}

const HAN_RUN = /\p{Script=Han}+/gu

/**
 * The Han words of three characters in a query's terms, as their two bigrams appended to the query:
 * a question cut at its question words leaves short parts (累的时候晚饭吃什么 → 晚饭吃) whose verbatim
 * text rarely occurs, while their bigrams (晚饭) do. Longer parts get bigrams from the query parser.
 */
export function withHanBigrams(query: string, terms: readonly string[]): string {
  const extra: string[] = []
  for (const term of terms) {
    for (const run of term.match(HAN_RUN) ?? []) {
      const chars = [...run]
      if (chars.length === 3) extra.push(`${chars[0]}${chars[1]}`, `${chars[1]}${chars[2]}`)
    }
  }
  return extra.length === 0 ? query : `${query} ${extra.join(' ')}`
}

const TIME_QUESTION_EN =
  /\b(?:when|how long|how many (?:days|weeks|months|years|hours)|what time|what date|which day|what day|since when)\b/i
const TIME_QUESTION_ZH = /什么时候|多久|多长时间|哪天|哪一天|几号|几月|哪年|几点|几年|几个月|几天/

/** A "when …" or "how long …" question, whose answer is usually a turn that holds a time expression. */
export function isTimeQuestion(query: string): boolean {
  return TIME_QUESTION_EN.test(query) || TIME_QUESTION_ZH.test(query)
}

const QUESTION_START =
  /^\s*(?:what|when|where|who|whom|whose|which|why|how|did|do|does|is|are|was|were|can|could|would|will|has|have|had|should)\b/i
const QUESTION_ZH = /吗|什么|怎么|哪|谁|几|多久|多少|为什么|呢/

/**
 * A natural-language question ("When did Priya move?", "上次部署出了什么问题"), as opposed to keywords:
 * it ends with a question mark, opens with an interrogative or auxiliary, or holds a Chinese question word.
 */
export function isQuestion(query: string): boolean {
  const text = query.trim()
  if (/[?？]$/.test(text)) return true
  // one word ("几何", "多少", "should") is a keyword: it gains nothing from the question ranking's work
  if (ONE_WORD.test(text)) return false
  return QUESTION_START.test(text) || QUESTION_ZH.test(text)
}

/** A single word: no white space, and a CJK run of at most four characters. */
const ONE_WORD =
  /^(?:[^\s\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]+|[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]{1,4})$/u
