/**
 * Plain-text helpers of the offline model: term matching across English and CJK, and reading the
 * transcripts the compressor and the nudge hand to a model. All linear in the text's length.
 */

const EN_STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i in is it its me my ' +
    'of on or our say said so tell told that the their them then there these they this to us was we were what ' +
    'when where which who why will with would you your about again ago already also any remember recall ' +
    'mention mentioned last time before earlier previously know please just'
  ).split(' '),
)

/** Question and filler words of Chinese, removed before a query is cut into terms. */
const ZH_FILLERS = [
  '还记得',
  '记得',
  '上次',
  '之前',
  '以前',
  '我们',
  '你们',
  '说过',
  '提过',
  '聊过',
  '什么',
  '怎么',
  '哪个',
  '哪里',
  '有没有',
  '关于',
  '告诉',
  '一下',
  '请问',
]
const ZH_SINGLE_FILLERS = new Set([...'我你他她说过吗呢吧了的是用在和啊呀么'])
/** Particles that end a word wherever they stand: a query's CJK runs are split there. */
const ZH_PARTICLES = new Set([...'了的吗呢吧啊呀么'])
/** Pronouns and particles that only frame a word: trimmed from the ends of a query's pieces, never inside. */
const ZH_FRAME = new Set([...ZH_PARTICLES, ...'我你他她它是'])

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/
const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+/g
const WORD = /[\p{L}\p{N}][\p{L}\p{N}_.-]*/gu

/** Lower case, without a plural `s`, so `databases` meets `database` and `uses` meets `use`. */
function stem(word: string): string {
  let end = word.length
  // A loop, not /[.-]+$/: that regex retries from every dot of a long run and goes quadratic.
  while (end > 0 && (word[end - 1] === '.' || word[end - 1] === '-')) end--
  const lower = word.slice(0, end).toLowerCase()
  return lower.length > 3 && lower.endsWith('s') && !lower.endsWith('ss') ? lower.slice(0, -1) : lower
}

function withoutFillers(text: string): string {
  let rest = text
  for (const filler of ZH_FILLERS) rest = rest.split(filler).join(' ')
  return rest
}

const meaningful = (word: string) => word.length > 1 && !EN_STOPWORDS.has(word.toLowerCase())

/** The words and CJK character pairs of `text` that carry meaning (stopwords and fillers removed). */
export function termsOf(text: string): string[] {
  const rest = withoutFillers(text)
  const terms = new Set<string>()
  for (const word of rest.replace(CJK_RUN, ' ').match(WORD) ?? []) {
    const stemmed = stem(word)
    if (meaningful(word) && meaningful(stemmed)) terms.add(stemmed)
  }
  for (const run of rest.match(CJK_RUN) ?? []) {
    const chars = [...run].filter((c) => !ZH_SINGLE_FILLERS.has(c))
    if (chars.length === 1) terms.add(chars[0] as string)
    for (let i = 0; i + 1 < chars.length; i++) terms.add(`${chars[i]}${chars[i + 1]}`)
  }
  return [...terms]
}

/** `piece` without the pronouns and particles at its ends (我用 → 用, 数据库是 → 数据库). */
function trimFrame(piece: string): string {
  const chars = [...piece]
  let start = 0
  let end = chars.length
  while (start < end && ZH_FRAME.has(chars[start] as string)) start++
  while (end > start && ZH_FRAME.has(chars[end - 1] as string)) end--
  return chars.slice(start, end).join('')
}

/**
 * A search query from a question: its meaningful words, and its CJK runs without the recall fillers
 * (上次, 还记得), split at particles and trimmed of pronouns at their ends. Characters inside a word are never
 * dropped (上次部署遇到了什么问题 → 部署遇到 问题, not 题); single characters go when longer pieces remain.
 * The store's search drops question words itself, so the query can stay close to the question.
 */
export function searchQuery(text: string): string {
  const rest = withoutFillers(text)
  const words = (rest.replace(CJK_RUN, ' ').match(WORD) ?? []).filter(meaningful).map((w) => w.toLowerCase())
  const pieces = (rest.match(CJK_RUN) ?? []).flatMap((run) =>
    [...run]
      .map((c) => (ZH_PARTICLES.has(c) ? ' ' : c))
      .join('')
      .split(' ')
      .map(trimFrame)
      .filter(Boolean),
  )
  const long = pieces.filter((piece) => [...piece].length > 1)
  return [...new Set([...words, ...(long.length > 0 ? long : pieces)])].join(' ')
}

/** How many of `terms` occur in `text` (words by stem or shared prefix of 4+, CJK pairs as substrings). */
export function overlap(terms: readonly string[], text: string): number {
  const words = new Set((text.replace(CJK_RUN, ' ').match(WORD) ?? []).map(stem))
  let score = 0
  for (const term of terms) {
    if (CJK.test(term)) {
      if (text.includes(term)) score++
      continue
    }
    if (words.has(term)) {
      score++
      continue
    }
    for (const word of words) {
      const [short, long] = word.length < term.length ? [word, term] : [term, word]
      if (short.length >= 4 && long.startsWith(short)) {
        score++
        break
      }
    }
  }
  return score
}

/** The line of `lines` sharing most terms with `query` (the first on ties), or null when none shares any. */
export function bestMatch(query: readonly string[], lines: readonly string[]): string | null {
  let best: string | null = null
  let bestScore = 0
  for (const line of lines) {
    const score = overlap(query, line)
    if (score > bestScore) {
      best = line
      bestScore = score
    }
  }
  return best
}

/** `text` cut to `max` characters at a character boundary, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const chars = [...flat]
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`
}

/** One turn of a compressor transcript (`[user]`, `[assistant]`, `[assistant calls x] {…}`, `[tool result of …]`). */
export interface TranscriptTurn {
  label: string
  text: string
}

const TURN_HEADER = /^\[(user|assistant|system|tool result of [^\]\n]*|assistant calls [^\]\n]*)\]/

/** Splits a transcript into its turns; text outside any turn is ignored. */
export function parseTranscript(transcript: string): TranscriptTurn[] {
  const turns: TranscriptTurn[] = []
  for (const line of transcript.split('\n')) {
    const header = TURN_HEADER.exec(line)
    if (header) {
      turns.push({ label: header[1] as string, text: line.slice(header[0].length).trim() })
      continue
    }
    const last = turns.at(-1)
    if (last) last.text = last.text ? `${last.text}\n${line}` : line
  }
  return turns.map((turn) => ({ label: turn.label, text: turn.text.trim() }))
}

/** The text between `<tag>` and `</tag>`, or null. */
export function tagged(text: string, tag: string): string | null {
  const start = text.indexOf(`<${tag}>`)
  const end = text.indexOf(`</${tag}>`, start)
  return start < 0 || end < 0 ? null : text.slice(start + tag.length + 2, end).trim()
}
