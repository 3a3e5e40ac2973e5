import type { EngramConfig } from './types.ts'

const HIDDEN = '(set, hidden)'
/** What a secret part of a url is shown as. */
const MASK = '***'

/** `scheme://authority` (network urls), or `scheme:` alone (`file:x.db`), then path, query, fragment. */
const URL_PARTS = /^([a-z][a-z0-9+.-]*:)(\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/is

/**
 * A path segment that may be a credential: long, mixing letters and digits, in the characters keys and
 * tokens are made of (`sk-proj-…`, `eyJ…`, 32 hex digits). File names with an extension are kept unless
 * very long, so ordinary paths stay readable.
 */
function looksLikeKey(segment: string): boolean {
  let text = segment
  try {
    text = decodeURIComponent(segment)
  } catch {}
  return (
    text.length >= 16 &&
    /[0-9]/.test(text) &&
    /[a-z]/i.test(text) &&
    /^[\w.~+=-]+$/.test(text) &&
    (!text.includes('.') || text.length >= 40)
  )
}

interface UrlParts {
  scheme: string
  /** `//host:port` with any userinfo removed; empty for urls without an authority. */
  authority: string
  userinfo: string | null
  path: string[]
  query: [string, string][]
  fragment: string | null
}

function partsOf(url: string): UrlParts | null {
  const match = URL_PARTS.exec(url.trim())
  if (!match) return null
  const [, scheme = '', slashes, authority = '', path = '', query, fragment] = match
  const at = authority.lastIndexOf('@')
  return {
    scheme,
    authority: slashes === undefined ? '' : `//${at < 0 ? authority : authority.slice(at + 1)}`,
    userinfo: at < 0 ? null : authority.slice(0, at),
    path: path.split('/'),
    query: (query ?? '')
      .slice(1)
      .split('&')
      .filter((pair) => pair !== '')
      .map((pair) => {
        const eq = pair.indexOf('=')
        return eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)]
      }),
    fragment: fragment === undefined ? null : fragment.slice(1),
  }
}

/**
 * The secret-looking parts of a url, as they appear in it and decoded: the userinfo (user and password),
 * every query value, the fragment, and, for network urls, path segments that look like keys. Error messages
 * remove these from text a server echoes back.
 */
function secretsInUrl(url: string): string[] {
  const parts = partsOf(url)
  if (!parts) return []
  const raw = [
    ...(parts.userinfo === null ? [] : [parts.userinfo, ...parts.userinfo.split(':')]),
    ...parts.query.map(([, value]) => value),
    ...(parts.fragment ? [parts.fragment] : []),
    ...(parts.authority ? parts.path.filter(looksLikeKey) : []),
  ].filter((part) => part.length >= 4)
  const decoded = raw.map((part) => {
    try {
      return decodeURIComponent(part)
    } catch {
      return part
    }
  })
  return [...new Set([...raw, ...decoded])].sort((a, b) => b.length - a.length)
}

/**
 * A url as it may be printed in a message, a log line or `engram doctor`: the userinfo, every query value
 * and the fragment are replaced by `***`, and so are path segments of network urls that look like keys.
 * Plain file paths come back unchanged. This is the one function every printed url goes through.
 */
export function maskUrl(url: string): string {
  const parts = partsOf(url)
  if (!parts) return url
  const path = parts.authority
    ? parts.path.map((segment) => (looksLikeKey(segment) ? MASK : segment))
    : parts.path
  const query = parts.query.map(([key, value]) => (value === '' ? key : `${key}=${MASK}`))
  return [
    parts.scheme,
    parts.authority && (parts.userinfo === null ? parts.authority : `//${MASK}@${parts.authority.slice(2)}`),
    path.join('/'),
    query.length ? `?${query.join('&')}` : '',
    parts.fragment === null ? '' : `#${MASK}`,
  ].join('')
}

/** `text` with every secret part of `url` replaced by `***` (for text a server sent back). */
export function withoutUrlSecrets(text: string, url: string): string {
  let result = text
  for (const secret of secretsInUrl(url)) result = result.split(secret).join(MASK)
  return result
}

/**
 * The configuration as it may be printed (`engram doctor`, `--json`): the same shape with the API key and
 * the database auth token replaced by a note of where they came from, and secrets in urls hidden. Nothing
 * of a secret's value is kept, not even its last characters.
 */
export function maskedConfig(config: EngramConfig): EngramConfig {
  const { storage, api } = config
  return {
    ...config,
    storage: {
      ...storage,
      ...(storage.url === undefined ? {} : { url: maskUrl(storage.url) }),
      ...(storage.syncUrl === undefined ? {} : { syncUrl: maskUrl(storage.syncUrl) }),
      ...(storage.authToken === undefined ? {} : { authToken: HIDDEN }),
    },
    api: {
      ...api,
      ...(api.baseUrl === undefined ? {} : { baseUrl: maskUrl(api.baseUrl) }),
      ...(api.apiKey === undefined ? {} : { apiKey: `${HIDDEN} from ${api.apiKeySource ?? 'the config'}` }),
    },
  }
}
