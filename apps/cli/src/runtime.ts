import {
  type Agent,
  type AgentEventHandler,
  createAgent,
  createProvider,
  type EngramConfig,
  MemoryFiles,
} from '@engram/agent'
import { openStore, type Store, type ToolCall } from '@engram/core'
import type { Io } from './output.ts'

export interface Runtime {
  agent: Agent
  store: Store
  memory: MemoryFiles
  close(): Promise<void>
}

export interface RuntimeOptions {
  source: string
  userId?: string
  /** Receives each tool call the main model makes (the REPL prints one dim line each). */
  onToolCall?: (call: ToolCall) => void
  /** Receives every event of the agent (`renderAgentEvent` gives the `[ctx]` / `[nudge]` lines). */
  onEvent?: AgentEventHandler
}

/**
 * The store, the memory files, the providers the config names and an agent over them: what `chat`, `demo`
 * and `eval` run. The auxiliary provider is separate only when the config names another model for it.
 */
export async function openRuntime(config: EngramConfig, io: Io, options: RuntimeOptions): Promise<Runtime> {
  const main = createProvider(config.api, config.models.main, io.env)
  const separateAux = config.models.compressor.modelId !== config.models.main.modelId
  const store = await openStore(config.storage)
  const memory = new MemoryFiles(config.memoryFiles)
  const agent = createAgent({
    store,
    provider: main,
    ...(separateAux ? { auxProvider: createProvider(config.api, config.models.compressor, io.env) } : {}),
    memory,
    config,
    source: options.source,
    ...(options.userId === undefined ? {} : { userId: options.userId }),
    onEvent: (event) => {
      if (event.type === 'tool-started') options.onToolCall?.(event.call)
      options.onEvent?.(event)
    },
  })
  return { agent, store, memory, close: () => store.close() }
}
