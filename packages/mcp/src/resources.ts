import { createHash } from 'node:crypto'
import { type FSWatcher, mkdirSync, watch } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import type { MemoryFiles, MemoryTarget } from '@engram/agent'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { memoryPath, TARGETS, viewMemoryFile } from './memory-view.ts'

export const MEMORY_URI: Record<MemoryTarget, string> = {
  memory: 'engram://memory/MEMORY.md',
  user: 'engram://memory/USER.md',
}

/** Changes seen within this many milliseconds are announced once (a write is a rename plus a lock). */
const SETTLE_MS = 40

/**
 * MEMORY.md and USER.md as resources (the block with its usage header), subscribable. The files' folders
 * are watched, so a write by any process (another client's server, the CLI, an editor) is announced to
 * the subscribers once its content changed. `announce` is for this process's own writes, which the
 * watcher would report a moment later anyway.
 */
export class MemoryResources {
  private readonly subscribed = new Set<string>()
  private readonly watchers: FSWatcher[] = []
  private readonly lastHash = new Map<MemoryTarget, string>()
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly server: McpServer,
    private readonly memory: MemoryFiles,
    private readonly log: (line: string) => void,
  ) {
    for (const target of TARGETS) {
      server.registerResource(
        target === 'memory' ? 'MEMORY.md' : 'USER.md',
        MEMORY_URI[target],
        {
          title: target === 'memory' ? 'Agent notes (MEMORY.md)' : 'User profile (USER.md)',
          description: `The ${target === 'memory' ? 'agent notes' : 'user profile'} with its usage header; subscribe to hear about changes by any process.`,
          mimeType: 'text/markdown',
        },
        async (uri) => ({
          contents: [
            { uri: uri.href, mimeType: 'text/markdown', text: (await viewMemoryFile(memory, target)).text },
          ],
        }),
      )
    }
    server.server.registerCapabilities({ resources: { subscribe: true } })
    server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      this.subscribed.add(request.params.uri)
      return {}
    })
    server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      this.subscribed.delete(request.params.uri)
      return {}
    })
  }

  /** Starts watching the folders of both files (created when missing). */
  async watch(): Promise<void> {
    for (const target of TARGETS) this.lastHash.set(target, await this.hash(target))
    const folders = new Map<string, Map<string, MemoryTarget>>()
    for (const target of TARGETS) {
      const path = memoryPath(this.memory, target)
      const names = folders.get(dirname(path)) ?? new Map<string, MemoryTarget>()
      names.set(basename(path), target)
      folders.set(dirname(path), names)
    }
    for (const [folder, names] of folders) {
      mkdirSync(folder, { recursive: true })
      const watcher = watch(folder, (_event, name) => {
        if (name === null || names.has(name.toString())) this.schedule()
      })
      watcher.on('error', (error) =>
        this.log(
          `engram mcp: watching ${folder} failed (${error.message}); changes by other processes are not announced.`,
        ),
      )
      this.watchers.push(watcher)
    }
  }

  /** Checks both files soon and announces the ones whose content changed. */
  schedule(): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.announceChanged(), SETTLE_MS)
  }

  private async hash(target: MemoryTarget): Promise<string> {
    const bytes = await readFile(memoryPath(this.memory, target)).catch(() => new Uint8Array())
    return createHash('sha256').update(bytes).digest('hex')
  }

  private async announceChanged(): Promise<void> {
    for (const target of TARGETS) {
      const hash = await this.hash(target)
      if (hash === this.lastHash.get(target)) continue
      this.lastHash.set(target, hash)
      const uri = MEMORY_URI[target]
      if (this.subscribed.has(uri) && this.server.isConnected()) {
        await this.server.server.sendResourceUpdated({ uri }).catch(() => undefined)
      }
    }
  }

  close(): void {
    clearTimeout(this.timer)
    for (const watcher of this.watchers) watcher.close()
  }
}
