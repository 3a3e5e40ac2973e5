import { createRequire } from 'node:module'
import type { ChatMessage, ContentPart } from '@engram/core/types'
import type { countTokens as CountTokens } from 'gpt-tokenizer'

/** Counts tokens the way a chat model sees them; every count the compressor makes goes through one. */
export interface TokenCounter {
  /** Tokens of a plain string. */
  countText(text: string): number
  /** Tokens of one message, including role framing, tool calls and image parts. */
  countMessage(message: ChatMessage): number
}

/** Role framing per message (`<|im_start|>role ... <|im_end|>`), as in OpenAI's counting recipe. */
const MESSAGE_OVERHEAD = 3
/** Tokens priming the reply, counted once per request. */
const REPLY_PRIMING = 3
/** Framing around one tool call (id, type, name/arguments keys). */
const TOOL_CALL_OVERHEAD = 7
/** OpenAI's published image costs: `low` detail is flat; otherwise a 1024×1024 image at high detail. */
const IMAGE_TOKENS_LOW = 85
const IMAGE_TOKENS_DEFAULT = 765

function countPart(part: ContentPart, countText: (text: string) => number): number {
  if (part.type === 'text' && typeof part.text === 'string') return countText(part.text)
  if (part.type === 'image_url') {
    const detail = (part.image_url as { detail?: string } | undefined)?.detail
    return detail === 'low' ? IMAGE_TOKENS_LOW : IMAGE_TOKENS_DEFAULT
  }
  return countText(JSON.stringify(part))
}

/** Builds a full {@link TokenCounter} from a text counter; message framing is the same for every tokenizer. */
export function createTokenCounter(countText: (text: string) => number): TokenCounter {
  return {
    countText,
    countMessage(message) {
      let total = MESSAGE_OVERHEAD + countText(message.role)
      if (typeof message.content === 'string') total += countText(message.content)
      else if (Array.isArray(message.content)) {
        for (const part of message.content) total += countPart(part, countText)
      }
      if (message.name) total += 1 + countText(message.name)
      for (const call of message.tool_calls ?? []) {
        total += TOOL_CALL_OVERHEAD + countText(call.function.name) + countText(call.function.arguments)
      }
      return total
    },
  }
}

/** Longest run without white space that the BPE sees whole; gpt-tokenizer's merging is quadratic in a run. */
const MAX_BPE_RUN = 256

const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x3000

let loaded: typeof CountTokens | undefined

/**
 * gpt-tokenizer, loaded on the first count: its ranks take ~150 ms to load, which every importer of this
 * package (a CLI listing sessions, a config loader) would otherwise pay without counting a token.
 */
function bpe(): typeof CountTokens {
  loaded ??= (createRequire(import.meta.url)('gpt-tokenizer') as { countTokens: typeof CountTokens })
    .countTokens
  return loaded
}

/**
 * o200k_base counts of `text`, cut into pieces wherever a run without white space grows past MAX_BPE_RUN
 * (base64, minified code, CJK prose, `aaaa…`): linear in the text. Text without such runs is counted whole,
 * exactly; each cut can add a token, about +0.4% on a run that long.
 */
function countBpe(text: string): number {
  const countTokens = bpe()
  const count = (piece: string) => countTokens(piece, { disallowedSpecial: new Set() })
  let total = 0
  let start = 0
  let run = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (isSpace(code)) run = 0
    else if (++run > MAX_BPE_RUN && (code < 0xdc00 || code > 0xdfff)) {
      total += count(text.slice(start, i))
      start = i
      run = 1
    }
  }
  return total + count(start === 0 ? text : text.slice(start))
}

/**
 * The accurate default: the o200k_base BPE (GPT-4o, GPT-4.1, GPT-5, o-series). Special-token text such as
 * `<|endoftext|>` is counted as ordinary text, because that is how a provider receives user content. Linear in
 * the text (see countBpe).
 */
export const bpeTokenCounter: TokenCounter = createTokenCounter(countBpe)

/**
 * A cheap estimator for hot paths and non-OpenAI models: about 4 characters per token for ASCII, one token per
 * character for other scripts (CJK text is roughly one token per character).
 */
export const estimateTokenCounter: TokenCounter = createTokenCounter((text) => {
  let ascii = 0
  let other = 0
  for (const char of text) {
    if (char.charCodeAt(0) < 128) ascii++
    else other++
  }
  return Math.ceil(ascii / 4) + other
})

/** Tokens of a whole request: every message plus the reply priming. */
export function countMessages(counter: TokenCounter, messages: readonly ChatMessage[]): number {
  let total = REPLY_PRIMING
  for (const message of messages) total += counter.countMessage(message)
  return total
}

/** Characters per token the first probe of clipToTokens assumes: more than most text has (English ~4). */
const CLIP_PROBE_CHARS_PER_TOKEN = 8

/**
 * The longest prefix of `text` within `maxTokens`, cut at a character boundary found by bisection. The work
 * depends on the budget, not on the text: prefixes four times longer each are counted until one is over the
 * budget (a 2 MB tool result clipped to 1,000 tokens counts tens of kilobytes, not the 2 MB), and the
 * bisection runs below that one.
 */
export function clipToTokens(counter: TokenCounter, text: string, maxTokens: number): string {
  let high = Math.min(text.length, Math.max(16, Math.ceil(maxTokens * CLIP_PROBE_CHARS_PER_TOKEN)))
  while (counter.countText(text.slice(0, high)) <= maxTokens) {
    if (high === text.length) return text
    high = Math.min(text.length, high * 4)
  }
  const ellipsis = '…'
  let low = 0
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (counter.countText(text.slice(0, mid) + ellipsis) <= maxTokens) low = mid
    else high = mid - 1
  }
  // Never end on half of a surrogate pair.
  const code = text.charCodeAt(low - 1)
  const end = code >= 0xd800 && code <= 0xdbff ? low - 1 : low
  return text.slice(0, end) + ellipsis
}
