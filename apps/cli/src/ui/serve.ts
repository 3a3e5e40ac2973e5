import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { getConnInfo } from '@hono/node-server/conninfo'
import { newAccessToken, newBasePath } from './access.ts'
import { createUiApp, type UiOptions } from './app.ts'

/** A running page: the address to open (with its token) and how to stop it. */
export interface RunningUi {
  url: string
  port: number
  close(): Promise<void>
}

type StartOptions = Omit<UiOptions, 'token' | 'basePath' | 'port' | 'remoteAddress'> & { port: number }

/**
 * Serves the page on 127.0.0.1 only (never on another interface), on `port` (0: a free one), under a new
 * random base path, with a new random access token in the printed URL.
 */
export function startUi(options: StartOptions): Promise<RunningUi> {
  const token = newAccessToken()
  const basePath = newBasePath()
  // Until the server listens, no port matches a request's Host: every request is refused.
  let listening = -1
  const app = createUiApp({
    ...options,
    token,
    basePath,
    port: () => listening,
    remoteAddress: (c) => getConnInfo(c).remote.address,
  })
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: options.port, hostname: '127.0.0.1' },
      (info: AddressInfo) => {
        listening = info.port
        resolve({
          url: `http://127.0.0.1:${info.port}${basePath}?token=${token}`,
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done())
              if ('closeAllConnections' in server) server.closeAllConnections()
            }),
        })
      },
    )
    server.once('error', reject)
  })
}
