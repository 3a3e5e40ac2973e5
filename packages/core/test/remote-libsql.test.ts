import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { EngramError, openStore } from '../src/index.ts'

// No libSQL server is reachable here, so a local HTTP server stands in for one up to the wire: it
// records what the client sends and answers every request with an error.
const requests: IncomingMessage[] = []
const server = createServer((req, res) => {
  requests.push(req)
  req.resume()
  res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable')
})
let url = ''

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

it('sends the auth token to a remote url over HTTP and reports failure without leaking it', async () => {
  const token = 'secret-token-1234567890'
  const error = await openStore({ url, authToken: token }).catch((e) => e)
  expect(error).toBeInstanceOf(EngramError)
  expect(requests.length).toBeGreaterThan(0)
  expect(requests.some((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true)
  expect(requests.every((r) => r.headers.host === new URL(url).host)).toBe(true)
  expect(error.message).not.toContain(token)
  expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(token)
})
