import { createServer, request } from 'node:http'

export interface AuthProxy {
  /** The proxy's port on 127.0.0.1 (clients use http://localhost:<port>/mcp). */
  port: number
  /** Where requests go from now on (the server's URL). */
  forwardTo(target: string): void
  close(): Promise<void>
}

/**
 * A reverse proxy on 127.0.0.1 that adds `Authorization: Bearer <token>` to every request and passes
 * everything else (method, path, Host, Origin, body, streamed answers) through unchanged: how the
 * conformance tool, which sends no credentials, reaches a server that serves only token holders.
 */
export function startAuthProxy(token: string): Promise<AuthProxy> {
  let to: URL | undefined
  const server = createServer((req, res) => {
    if (!to) {
      res.writeHead(503)
      return void res.end()
    }
    const target = to
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(upstream)
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      resolve({
        port,
        forwardTo: (target) => {
          to = new URL(target)
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}
