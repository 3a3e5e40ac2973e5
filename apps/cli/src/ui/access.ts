import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'

/** The cookie that carries the access token after the first visit, so links need not repeat it. */
const COOKIE = 'engram_ui'

/** A fresh access token: 128 random bits, URL-safe. */
export const newAccessToken = (): string => randomBytes(16).toString('base64url')

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Lets a request through only when it comes from this machine, names this server in its Host header (a web
 * page elsewhere cannot rebind a name to 127.0.0.1 and read the answers) and carries the token: in the
 * `token` query parameter of the printed URL (then kept in a strict, HTTP-only cookie and dropped from the
 * address bar) or in that cookie. A form post must also come from a page of this server (Origin).
 * Everything else gets a bare 403 and no data.
 */
export function requireAccess(
  token: string,
  remoteAddress: (c: Parameters<MiddlewareHandler>[0]) => string | undefined,
): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? ''
    const port = new URL(c.req.url).port
    const hostOk = host === `127.0.0.1:${port}` || host === `localhost:${port}`
    if (!LOOPBACK.has(remoteAddress(c) ?? '') || !hostOk) return c.text('Forbidden', 403)
    const fromQuery = c.req.query('token')
    if (sameToken(fromQuery, token)) {
      setCookie(c, COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' })
      const url = new URL(c.req.url)
      url.searchParams.delete('token')
      return c.redirect(`${url.pathname}${url.search}`, 303)
    }
    if (!sameToken(getCookie(c, COOKIE), token)) {
      return c.text('Forbidden: open the address `engram ui` printed (it carries the access token).', 403)
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin')
      if (origin !== `http://${host}`) return c.text('Forbidden: cross-site request.', 403)
    }
    await next()
  }
}
