/**
 * Time in natural-language queries and messages: the days a query names ("on 8 May 2023", "last week",
 * 上周, 2023年5月8日), resolved against a given `now`, and whether a text holds a time expression.
 * Dates are calendar days in UTC. Every function is one or a few linear regex passes.
 */

const DAY = 86_400_000

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]
const MONTH =
  '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)'

/** A span of time [from, to) in milliseconds since the epoch. */
export interface TimeRange {
  from: number
  to: number
}

export interface QueryDates {
  /** The query with the date expressions blanked out (they are matched by time, not as words). */
  text: string
  ranges: TimeRange[]
}

const monthIndex = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)))

const dayStart = (now: number) => Math.floor(now / DAY) * DAY

function dayRange(year: number, month: number, day: number): TimeRange | null {
  if (month < 0 || month > 11 || day < 1 || day > 31) return null
  const from = Date.UTC(year, month, day)
  return { from, to: from + DAY }
}

function monthRange(year: number, month: number): TimeRange {
  return { from: Date.UTC(year, month, 1), to: Date.UTC(year, month + 1, 1) }
}

/** A day or month without a year is its latest occurrence that has begun by `now`. */
function latestYear(now: number, month: number, day: number): number {
  const year = new Date(now).getUTCFullYear()
  return Date.UTC(year, month, day) <= now ? year : year - 1
}

/** A month named without a year: its latest occurrence that has begun by `now`. */
const latestMonth = (now: number, month: number) => monthRange(latestYear(now, month, 1), month)

function weekStart(now: number): number {
  const today = dayStart(now)
  return today - ((new Date(today).getUTCDay() + 6) % 7) * DAY
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
}

interface Rule {
  pattern: RegExp
  resolve: (m: RegExpExecArray, now: number) => TimeRange | null
}

const num = (s: string | undefined) => Number.parseInt(s ?? '', 10)

const RULES: Rule[] = [
  {
    pattern: /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g,
    resolve: (m) => dayRange(num(m[1]), num(m[2]) - 1, num(m[3])),
  },
  {
    pattern: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? (?:of )?${MONTH}\\b,? ?(\\d{4})?`, 'gi'),
    resolve: (m, now) => {
      const month = monthIndex(m[2] as string)
      const day = num(m[1])
      return dayRange(m[3] ? num(m[3]) : latestYear(now, month, day), month, day)
    },
  },
  {
    pattern: new RegExp(`\\b${MONTH} (\\d{1,2})(?:st|nd|rd|th)?\\b,? ?(\\d{4})?`, 'gi'),
    resolve: (m, now) => {
      const month = monthIndex(m[1] as string)
      const day = num(m[2])
      return dayRange(m[3] ? num(m[3]) : latestYear(now, month, day), month, day)
    },
  },
  {
    pattern: new RegExp(`\\b(?:in )?${MONTH} (\\d{4})\\b`, 'gi'),
    resolve: (m) => monthRange(num(m[2]), monthIndex(m[1] as string)),
  },
  {
    // a month named alone ("in June", "during March"): its latest occurrence begun by `now`; "in" or
    // "during" is required so that "may" the verb and "march" the verb stay words
    pattern: new RegExp(`\\b(?:in|during) ${MONTH}\\b(?![ -]?\\d)`, 'gi'),
    resolve: (m, now) => latestMonth(now, monthIndex(m[1] as string)),
  },
  {
    pattern: /(\d{4})年(\d{1,2})月(\d{1,2})[日号]/g,
    resolve: (m) => dayRange(num(m[1]), num(m[2]) - 1, num(m[3])),
  },
  {
    pattern: /(\d{1,2})月(\d{1,2})[日号]/g,
    resolve: (m, now) => {
      const month = num(m[1]) - 1
      const day = num(m[2])
      return dayRange(latestYear(now, month, day), month, day)
    },
  },
  { pattern: /(\d{4})年(\d{1,2})月/g, resolve: (m) => monthRange(num(m[1]), num(m[2]) - 1) },
  {
    // 六月 written with digits alone (6月, 6月份), not a day (6月8日, taken above) or a count (6个月)
    pattern: /(?<![\d年])(\d{1,2})月份?(?![\d日号])/g,
    resolve: (m, now) => {
      const month = num(m[1]) - 1
      return month < 0 || month > 11 ? null : latestMonth(now, month)
    },
  },
  {
    pattern: /\byesterday\b|昨天/gi,
    resolve: (_, now) => ({ from: dayStart(now) - DAY, to: dayStart(now) }),
  },
  { pattern: /前天/g, resolve: (_, now) => ({ from: dayStart(now) - 2 * DAY, to: dayStart(now) - DAY }) },
  { pattern: /\btoday\b|今天/gi, resolve: (_, now) => ({ from: dayStart(now), to: dayStart(now) + DAY }) },
  {
    pattern: /\blast week\b|上周|上个星期|上星期/gi,
    resolve: (_, now) => ({ from: weekStart(now) - 7 * DAY, to: weekStart(now) }),
  },
  {
    pattern: /\bthis week\b|这周|本周|这个星期/gi,
    resolve: (_, now) => ({ from: weekStart(now), to: weekStart(now) + 7 * DAY }),
  },
  {
    pattern: /\blast month\b|上个月/gi,
    resolve: (_, now) => {
      const d = new Date(now)
      return monthRange(d.getUTCFullYear(), d.getUTCMonth() - 1)
    },
  },
  {
    pattern: /\blast year\b|去年/gi,
    resolve: (_, now) => {
      const year = new Date(now).getUTCFullYear() - 1
      return { from: Date.UTC(year, 0, 1), to: Date.UTC(year + 1, 0, 1) }
    },
  },
  {
    pattern: /\b(\d{1,2}|a|an|one|two|three|four|five|six) (day|week|month)s? ago\b/gi,
    resolve: (m, now) => {
      const n = NUMBER_WORDS[(m[1] as string).toLowerCase()] ?? num(m[1])
      const unit = m[2]?.toLowerCase() === 'day' ? 1 : m[2]?.toLowerCase() === 'week' ? 7 : 30
      // a loose span around the day: "two weeks ago" is rarely exact
      const centre = dayStart(now) - n * unit * DAY
      const slack = unit === 1 ? 0 : unit * DAY
      return { from: centre - slack, to: centre + DAY + slack }
    },
  },
]

/** The days and months a query names, resolved against `now`, and the query without them. */
export function parseQueryDates(query: string, now: number): QueryDates {
  let text = query
  const ranges: TimeRange[] = []
  for (const rule of RULES) {
    text = text.replace(rule.pattern, (...args: unknown[]) => {
      const match = args.slice(0, -2) as unknown as RegExpExecArray
      const range = rule.resolve(match, now)
      if (range === null || Number.isNaN(range.from)) return match[0]
      ranges.push(range)
      return ' '
    })
  }
  // "on" / "in" left in front of a removed date carry nothing
  return { text: ranges.length > 0 ? text.replace(/\b(?:on|in|of)\s+(?=\s|[?？.!]|$)/gi, ' ') : text, ranges }
}

const TIME_EXPRESSION_EN = new RegExp(
  `\\b(?:yesterday|today|tonight|tomorrow|ago|last|next|since|until|morning|afternoon|evening|night|noon|midnight|weekend|` +
    `(?:mon|tues|wednes|thurs|fri|satur|sun)day|${MONTH}|days?|weeks?|months?|years?|hours?|minutes?|decade|` +
    `\\d{4}|\\d{1,2}(?:st|nd|rd|th)|\\d{1,2}(?::\\d{2})?\\s?[ap]m)\\b`,
  'i',
)
const TIME_EXPRESSION_ZH =
  /昨天|今天|今晚|明天|前天|后天|上周|下周|本周|这周|周末|上个月|下个月|月初|月底|去年|今年|明年|年前|天前|周前|以前|之前|小时|分钟|半年|星期|周[一二三四五六日天]|\d+[年月日号]|[一二三四五六七八九十两]+(?:年|个月|天|周)|凌晨|早上|上午|中午|下午|傍晚|晚上|[二三四五六七八九十两\d]+点|十[一二]点/

/** Whether a text holds a time expression (yesterday, last week, May, 2023, 3 days, 2am, 上周, 两年, 5月, 下午, 两点 …). */
export function hasTimeExpression(text: string): boolean {
  return TIME_EXPRESSION_EN.test(text) || TIME_EXPRESSION_ZH.test(text)
}
