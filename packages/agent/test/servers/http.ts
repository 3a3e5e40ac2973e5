import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request the server received, body parsed as JSON when it is JSON. */
export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: unknown
}

export type Reply = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>

export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  origin: string
  requests: RecordedRequest[]
  /** Replies still queued. */
  pending(): number
  close(): Promise<void>
}

/**
 * An HTTP server on 127.0.0.1 (port 0) that answers each request with the next queued reply; when the queue
 * is empty it answers with `fallback` (default: 500 "no reply queued"), so a test sees the extra call.
 */
export async function startServer(replies: Reply[], fallback?: Reply): Promise<LocalServer> {
  const queue = [...replies]
  const requests: RecordedRequest[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    let body: unknown = text
    try {
      body = text ? JSON.parse(text) : null
    } catch {}
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
    }
    requests.push(recorded)
    const reply =
      queue.shift() ??
      fallback ??
      ((_r: RecordedRequest, out: ServerResponse) =>
        sendJson(out, 500, { error: { message: 'no reply queued' } }))
    await reply(recorded, res)
  })
  // No idle timeout on kept-alive connections: with Node's default (5 s) a loaded machine can let a client
  // reuse a pooled socket just as the server closes it, and the request fails with ECONNRESET. close() ends
  // every connection anyway.
  server.keepAliveTimeout = 0
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    pending: () => queue.length,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

export function sendText(res: ServerResponse, status: number, text: string, contentType = 'text/plain') {
  res.writeHead(status, { 'content-type': contentType })
  res.end(text)
}

/** Writes server-sent events one by one, each in its own write so the client really streams. */
export async function sendEvents(res: ServerResponse, events: { event?: string; data: string }[]) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const { event, data } of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${data}\n\n`)
    await new Promise((resolve) => setImmediate(resolve))
  }
  res.end()
}

/**
 * A reply that starts and then stalls: the status and headers, then `pieces` written one by one, then
 * nothing more (the connection stays open until the server closes), as a stuck upstream behaves.
 */
export function stallAfter(contentType: string, pieces: string[]): Reply {
  return async (_request, res) => {
    res.writeHead(200, { 'content-type': contentType })
    res.flushHeaders()
    for (const piece of pieces) {
      res.write(piece)
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
}

/** A reply that never answers (for timeouts); the connection is dropped when the server closes. */
export const hang: Reply = () => {}

/** A free port with nothing listening on it (for unreachable proxies). */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The JSON body of the `index`-th request the server received, typed as the test expects it. */
export function bodyOf<T = { messages: { role: string; content: unknown }[] }>(
  server: LocalServer,
  index: number,
): T {
  const request = server.requests[index]
  if (!request) throw new Error(`The server received ${server.requests.length} request(s), not ${index + 1}.`)
  return request.body as T
}
