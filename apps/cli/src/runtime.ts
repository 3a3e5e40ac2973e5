import {
  type Agent,
  type ChatRequest,
  createAgent,
  createProvider,
  type EngramConfig,
  MemoryFiles,
  type ModelProvider,
} from '@engram/agent'
import { openStore, type Store, type ToolCall } from '@engram/core'
import type { Io } from './output.ts'

/** A provider that reports each tool call the model asks for, as the answer comes back. */
function watchToolCalls(provider: ModelProvider, onToolCall: (call: ToolCall) => void): ModelProvider {
  return {
    name: provider.name,
    model: provider.model,
    async chat(request: ChatRequest) {
      const result = await provider.chat(request)
      for (const call of result.message.tool_calls ?? []) onToolCall(call)
      return result
    },
  }
}

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
  /** Receives the agent's `[ctx]` and `[nudge]` lines. */
  logger?: (line: string) => void
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
    provider: options.onToolCall ? watchToolCalls(main, options.onToolCall) : main,
    ...(separateAux ? { auxProvider: createProvider(config.api, config.models.compressor, io.env) } : {}),
    memory,
    config,
    source: options.source,
    ...(options.userId === undefined ? {} : { userId: options.userId }),
    logger: options.logger ?? (() => undefined),
  })
  return { agent, store, memory, close: () => store.close() }
}
