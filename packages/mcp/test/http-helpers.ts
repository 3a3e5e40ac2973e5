import { type ChildProcess, spawn } from 'node:child_process'
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

const ENGRAM_BIN = fileURLToPath(new URL('../../../apps/cli/bin/engram.js', import.meta.url))

export interface HttpServer {
  url: string
  child: ChildProcess
  stderr: () => string
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>
}

/**
 * Starts `engram mcp --http --port 0` (the CLI users run, built) as a child process and resolves
 * with the URL it prints once it listens.
 */
export function startHttpServer(args: string[], env: Record<string, string>): Promise<HttpServer> {
  const child = spawn(process.execPath, [ENGRAM_BIN, 'mcp', '--http', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
      if (process.env.ENGRAM_TEST_SERVER_LOG) process.stderr.write(chunk)
      const url = /serving over HTTP at (\S+) /.exec(stderr)?.[1]
      if (url) resolve({ url, child, stderr: () => stderr, exited })
    })
    void exited.then((code) => reject(new Error(`engram mcp --http exited (${code}):\n${stderr}`)))
  })
}

/** The SDK's client over Streamable HTTP, presenting `token` (if any) as a bearer token. */
export async function connect(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  })
  const client = new Client({ name: 'http-test', version: '1.0.0' })
  await client.connect(transport)
  return client
}

export async function callText(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 600_000,
  })) as CallToolResult
  const text = (result.content as { text?: string }[]).map((c) => c.text ?? '').join('\n')
  return { text, isError: Boolean(result.isError) }
}

/** One raw HTTP request (any Host header, any body), for what a well-behaved client never sends. */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'POST', headers: options.headers }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}
