/** What a redacted secret is replaced with. */
export const REDACTED = '[REDACTED]'

/** Not preceded by a token character, so `task-…` is not read as an `sk-…` key. */
const START = '(?<![A-Za-z0-9_-])'

/** Secrets recognisable by their own shape, wherever they appear. */
const SECRET_PATTERNS: readonly RegExp[] = [
  new RegExp(`${START}sk-ant-[A-Za-z0-9_-]{16,}`, 'g'),
  new RegExp(`${START}sk-[A-Za-z0-9_-]{16,}`, 'g'),
  new RegExp(`${START}(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])`, 'g'),
  new RegExp(`${START}gh[pousr]_[A-Za-z0-9]{20,}`, 'g'),
  new RegExp(`${START}github_pat_[A-Za-z0-9_]{20,}`, 'g'),
  new RegExp(`${START}xox[abprs]-[A-Za-z0-9-]{10,}`, 'g'),
  new RegExp(`${START}AIza[0-9A-Za-z_-]{30,}`, 'g'),
  new RegExp(`${START}eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}`, 'g'),
]

const KEY_BEGIN = /-----BEGIN [A-Z ]*PRIVATE KEY-----/g
const KEY_END = /-----END [A-Z ]*PRIVATE KEY-----/g

/**
 * PEM private key blocks, BEGIN to the first END after it. A scan rather than a lazy `[\s\S]*?`, which would
 * read to the end of the text once for every BEGIN without an END (quadratic).
 */
function redactKeyBlocks(text: string): string {
  let out = ''
  let last = 0
  KEY_BEGIN.lastIndex = 0
  for (let begin = KEY_BEGIN.exec(text); begin !== null; begin = KEY_BEGIN.exec(text)) {
    KEY_END.lastIndex = KEY_BEGIN.lastIndex
    if (KEY_END.exec(text) === null) break
    out += text.slice(last, begin.index) + REDACTED
    last = KEY_END.lastIndex
    KEY_BEGIN.lastIndex = last
  }
  return last === 0 ? text : out + text.slice(last)
}

// The patterns below start only where a run of their first characters starts (a lookbehind, not `\b`): from
// a `\b` inside a long run such as `a-a-a-…` each would read the rest of the run again (quadratic).

/** `scheme://user:password@host`: the password goes, user and host stay. */
const URL_PASSWORD = /((?<![a-z0-9+.-])[a-z0-9+.-]+:\/\/[^\s:/@]+:)[^\s@/]+@/gi

/**
 * `Authorization: Bearer <token>`: the scheme word stays, the credential goes. A digit is required so prose
 * such as "basic introduction" is left alone.
 */
const BEARER = /\b(Bearer|Basic)(\s+)(?=[A-Za-z._~+/=-]*\d)[A-Za-z0-9._~+/=-]{12,}/gi

/**
 * `api_key = …`, `"password": "…"`, `GITHUB_TOKEN=…`: a key whose name ends in a secret word, then `:` or `=`,
 * then a value (quoted or bare). The key and punctuation stay so the text still reads.
 */
const ASSIGNMENT =
  /((?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*(?:api[_-]?key|apikey|secret|token|password|passwd|pwd|credentials?|auth))(["']?\s*[:=]\s*)(?:"([^"\n]*)"|'([^'\n]*)'|(["']?)([^\s"',;&{}[\]]+))/gi

function redactAssignment(
  match: string,
  key: string,
  separator: string,
  doubleQuoted?: string,
  singleQuoted?: string,
  unclosedQuote?: string,
): string {
  if (doubleQuoted !== undefined) return doubleQuoted ? `${key}${separator}"${REDACTED}"` : match
  if (singleQuoted !== undefined) return singleQuoted ? `${key}${separator}'${REDACTED}'` : match
  return `${key}${separator}${unclosedQuote ?? ''}${REDACTED}`
}

/**
 * Replaces API keys (OpenAI `sk-…`, Anthropic `sk-ant-…`, AWS `AKIA…`, GitHub `ghp_…`, Slack, Google), bearer
 * credentials, passwords in URLs, JWTs, private key blocks and `key = value` assignments of passwords, tokens and secrets with
 * {@link REDACTED}. Pure and idempotent; safe to run on any text that leaves the process.
 */
export function redactSecrets(text: string): string {
  let result = redactKeyBlocks(text)
  for (const pattern of SECRET_PATTERNS) result = result.replace(pattern, REDACTED)
  result = result.replace(URL_PASSWORD, `$1${REDACTED}@`)
  result = result.replace(BEARER, (_match, scheme: string, space: string) => `${scheme}${space}${REDACTED}`)
  return result.replace(ASSIGNMENT, redactAssignment)
}
