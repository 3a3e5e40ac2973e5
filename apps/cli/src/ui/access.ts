import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'

/** A fresh access token: 128 random bits, URL-safe. */
export const newAccessToken = (): string => randomBytes(16).toString('base64url')

/**
 * A fresh path the page lives under (`/u-…/`): the token's cookie is scoped to it, so a browser sends the
 * cookie to this server only, never to another server on 127.0.0.1 (cookies ignore the port, not the path)
 * nor to a second `engram ui`.
 */
export const newBasePath = (): string => `/u-${randomBytes(9).toString('base64url')}/`

/** The cookie's name: one per port, so two servers never overwrite each other's. */
const cookieName = (port: number): string => `engram_ui_${port}`

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Who may read the page: the token, the path it lives under and the port it listens on. */
export interface AccessOptions {
  token: string
  /** `/u-…/`, see newBasePath. */
  basePath: string
  /** The port the server listens on (-1 until it does: every request is refused). */
  port: () => number
  /** The peer address of a request (the node server's socket). */
  remoteAddress: (c: Parameters<MiddlewareHandler>[0]) => string | undefined
}

/**
 * Lets a request through only when it comes from this machine, names this server and its port in its Host
 * header (a web page elsewhere cannot rebind a name to 127.0.0.1 and read the answers), asks for a page
 * under the base path, and carries the token: in the `token` query parameter of the printed URL (then kept
 * in a strict, HTTP-only cookie named for the port and scoped to the base path, and dropped from the address
 * bar) or in that cookie. A form post must also come from a page of this server (Origin). Everything else
 * gets a bare 403 and no data.
 */
export function requireAccess({ token, basePath, port, remoteAddress }: AccessOptions): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? ''
    const hostOk = host === `127.0.0.1:${port()}` || host === `localhost:${port()}`
    if (!LOOPBACK.has(remoteAddress(c) ?? '') || !hostOk) return c.text('Forbidden', 403)
    const url = new URL(c.req.url)
    const forbidden = () =>
      c.text('Forbidden: open the address `engram ui` printed (it carries the access token).', 403)
    if (!`${url.pathname}/`.startsWith(basePath)) return forbidden()
    const name = cookieName(port())
    if (sameToken(c.req.query('token'), token)) {
      setCookie(c, name, token, { httpOnly: true, sameSite: 'Strict', path: basePath })
      url.searchParams.delete('token')
      return c.redirect(`${url.pathname}${url.search}`, 303)
    }
    if (!sameToken(getCookie(c, name), token)) return forbidden()
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin')
      if (origin !== `http://${host}`) return c.text('Forbidden: cross-site request.', 403)
    }
    await next()
  }
}
