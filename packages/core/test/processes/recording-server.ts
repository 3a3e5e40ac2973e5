// A stand-in for a libSQL primary that is down: it prints `PORT <n>`, then one JSON line per request it
// gets (method, path, authorization) and answers each with 503. It runs in its own process because an
// embedded replica syncs synchronously, blocking the event loop of the process that opens it.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const server = createServer((req, res) => {
  console.log(JSON.stringify({ method: req.method, path: req.url, authorization: req.headers.authorization }))
  req.resume()
  res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable')
})
server.listen(0, '127.0.0.1', () => console.log(`PORT ${(server.address() as AddressInfo).port}`))
