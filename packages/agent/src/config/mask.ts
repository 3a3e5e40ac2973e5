import type { EngramConfig } from './types.ts'

const HIDDEN = '(set, hidden)'

/** A url with any password and token-like query parameters replaced, so it can be printed. */
export function maskUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  let hidden = false
  if (parsed.password) {
    parsed.password = 'hidden'
    hidden = true
  }
  for (const key of [...parsed.searchParams.keys()]) {
    if (/token|key|secret|password/i.test(key)) {
      parsed.searchParams.set(key, 'hidden')
      hidden = true
    }
  }
  // Nothing secret: the url as written (URL's own spelling turns `file:ok.db` into `file:///ok.db`).
  return hidden ? parsed.href : url
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
