import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type CompressorConfig, DEFAULT_COMPRESSOR_CONFIG } from '@engram/compressor'
import { type ChatMessage, openStore, type Store } from '@engram/core'
import { afterAll } from 'vitest'
import { type Child, spawnProcess, TSX_LOADER } from '../../core/test/processes/spawn.ts'
import type { MemoryFilesConfig, ModelConfig } from '../src/config/types.ts'
import {
  type AgentConfig,
  type AgentEventHandler,
  type CreateAgentOptions,
  createAgent,
  MemoryFiles,
  type ModelProvider,
  renderAgentEvent,
} from '../src/index.ts'
import { memoryConfig } from './memory-helpers.ts'

export const MAIN_MODEL: ModelConfig = { modelId: 'gpt-local', maxTokens: 512, contextWindow: 128_000 }
export const AUX_MODEL: ModelConfig = { modelId: 'claude-local', maxTokens: 600, contextWindow: 200_000 }

export function agentConfig(
  overrides: {
    compressor?: Partial<CompressorConfig>
    intervalTasks?: number
    main?: Partial<ModelConfig>
    aux?: Partial<ModelConfig>
  } = {},
): AgentConfig {
  return {
    compressor: { ...DEFAULT_COMPRESSOR_CONFIG, ...overrides.compressor },
    nudge: { intervalTasks: overrides.intervalTasks ?? 15 },
    models: { main: { ...MAIN_MODEL, ...overrides.main }, compressor: { ...AUX_MODEL, ...overrides.aux } },
  }
}

/** Collects the rendered `[ctx]` / `[nudge]` lines of the events into `lines`. */
export function logTo(lines: string[]): AgentEventHandler {
  return (event) => {
    const line = renderAgentEvent(event)
    if (line !== null) lines.push(line)
  }
}

/** A database and memory files in `dir`; stores opened through it are closed when the file ends. */
export function world(dir: string, name = 'world') {
  const dbPath = join(dir, `${name}.db`)
  const memory: MemoryFilesConfig = memoryConfig(dir)
  const stores: Store[] = []
  afterAll(async () => {
    for (const store of stores) await store.close().catch(() => undefined)
  })
  return {
    dbPath,
    memory,
    async open(): Promise<Store> {
      const store = await openStore({ url: dbPath })
      stores.push(store)
      return store
    },
    agent(store: Store, provider: ModelProvider, options: Partial<CreateAgentOptions> = {}) {
      return createAgent({
        store,
        provider,
        memory: new MemoryFiles(memory),
        config: agentConfig(),
        source: 'cli',
        ...options,
      })
    },
  }
}

/** Whether a history is valid for the chat APIs: each tool call answered right after it, no stray results. */
export function toolPairingProblems(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = []
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as ChatMessage
    if (message.role === 'tool') {
      problems.push(`stray tool result at ${i}`)
      continue
    }
    const ids = (message.tool_calls ?? []).map((call) => call.id)
    let j = i + 1
    const answered = new Set<string>()
    while (messages[j]?.role === 'tool') {
      const id = messages[j]?.tool_call_id ?? ''
      if (!ids.includes(id) || answered.has(id)) problems.push(`result ${id} at ${j} answers no open call`)
      answered.add(id)
      j++
    }
    for (const id of ids) if (!answered.has(id)) problems.push(`call ${id} at ${i} has no result`)
    i = j - 1
  }
  return problems
}

/**
 * Runs `processes/<script>` in a node process with tsx loaded (so a SIGKILL reaches the real worker). The
 * scripts import the packages as a user's program does: their build, which vitest makes before the tests
 * (vitest.build.ts), loaded by Node without transpiling the sources again in every process.
 */
export function spawnAgentScript(script: string, args: string[]): Child {
  const path = fileURLToPath(new URL(`./processes/${script}`, import.meta.url))
  return spawnProcess(process.execPath, ['--import', TSX_LOADER, path, ...args])
}
