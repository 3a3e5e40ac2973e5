import type { MemoryFiles } from '@engram/agent'
import type { Store } from '@engram/core'
import type { Budget } from './budget.ts'
import type { Scope } from './scope.ts'

/** The parts of the store the server's tools use. */
export type McpStore = Pick<
  Store,
  | 'search'
  | 'listSessions'
  | 'listSessionsPage'
  | 'getSession'
  | 'resolveSession'
  | 'getStoredMessages'
  | 'getLineage'
  | 'getEpisodes'
  | 'readAround'
  | 'createSession'
  | 'appendMessagesOnce'
>

/** What every tool of the server is built from; the scope is fixed for the server's lifetime. */
export interface ToolDeps {
  store: McpStore
  memory: MemoryFiles
  scope: Scope
  budget: Budget
}
