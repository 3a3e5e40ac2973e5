import { createHash } from 'node:crypto'
import type { Store } from '@engram/core'
import { MemoryToolError } from './paths.ts'

/** The session source of memory-tool files: `store.search({ source })` and session lists can pick them out. */
export const CLAUDE_MEMORY_SOURCE = 'claude-memory'

/** The Store methods the files use. */
export type ClaudeMemoryStore = Pick<
  Store,
  'listSessionsPage' | 'importSession' | 'deleteSession' | 'getMessages'
>

/** One version of a file: a session whose title is the path and whose one message is the content. */
export interface StoredFile {
  path: string
  version: number
  sessionId: string
}

const VERSION_DIGITS = 10
/** Reads of a file that keeps being replaced before giving up (each replacement is a whole write). */
const READ_ATTEMPTS = 5

/**
 * Memory-tool files other than MEMORY.md and USER.md, kept in the Store without tables of their own: each
 * version of a file is one session (source `claude-memory`, the user's id, the path as title) holding the
 * content as one message (always one, so a version without it is one deleted after it was listed), so store.search, session_search, MCP and the web page find it. A version's
 * session id is derived from the user, the path and the version number, so writing version n+1 is a
 * compare-and-swap (importSession writes nothing when the id is taken) and the highest version present is
 * the current content: an older version left by a crash is never read as current, and is deleted by the
 * next write. Callers serialise writes of one user (see the handlers' lock).
 */
export class StoreFiles {
  constructor(
    private readonly store: ClaudeMemoryStore,
    private readonly userId: string,
  ) {}

  private prefix(path: string): string {
    const hash = createHash('sha256').update(`${this.userId}\0${path}`).digest('hex').slice(0, 32)
    return `cm-${hash}-`
  }

  private async sessions(idPrefix?: string): Promise<StoredFile[]> {
    const files: StoredFile[] = []
    let cursor: string | undefined
    do {
      const page = await this.store.listSessionsPage({
        source: CLAUDE_MEMORY_SOURCE,
        userId: this.userId,
        limit: 1_000,
        ...(idPrefix ? { idPrefix } : {}),
        ...(cursor ? { cursor } : {}),
      })
      for (const session of page.items) {
        const version = Number(session.id.slice(-VERSION_DIGITS))
        if (session.title && Number.isSafeInteger(version)) {
          files.push({ path: session.title, version, sessionId: session.id })
        }
      }
      cursor = page.nextCursor ?? undefined
    } while (cursor)
    return files
  }

  /** Every file's current version, by path. One paged listing of the user's memory sessions. */
  async list(): Promise<Map<string, StoredFile>> {
    const current = new Map<string, StoredFile>()
    for (const file of await this.sessions()) {
      if ((current.get(file.path)?.version ?? 0) < file.version) current.set(file.path, file)
    }
    return current
  }

  /** The current version of `path`, or null when there is none. One indexed listing. */
  async current(path: string): Promise<StoredFile | null> {
    const versions = await this.versions(path)
    return versions.at(-1) ?? null
  }

  /** Every version of `path` present, oldest first (more than one only after a crash or mid-write). */
  private async versions(path: string): Promise<StoredFile[]> {
    const found = await this.sessions(this.prefix(path))
    return found.filter((file) => file.path === path).sort((a, b) => a.version - b.version)
  }

  /**
   * The content of one version, or null when that version is gone (a newer one replaced it, or the file
   * was deleted, after it was listed). One indexed read.
   */
  async read(file: StoredFile): Promise<string | null> {
    const [message] = await this.store.getMessages(file.sessionId)
    if (message === undefined) return null
    return typeof message.content === 'string' ? message.content : ''
  }

  /**
   * The current version of `path` and its content, or null when there is no such file. A version replaced
   * between the listing and the read is never returned: the newer one is looked up instead.
   */
  async readCurrent(path: string): Promise<{ file: StoredFile; content: string } | null> {
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const file = await this.current(path)
      if (!file) return null
      const content = await this.read(file)
      if (content !== null) return { file, content }
    }
    throw new MemoryToolError(`${path} changed ${READ_ATTEMPTS} times while it was being read. Retry.`)
  }

  /** The content of a version read under the lock, where only this writer replaces versions. */
  async readLocked(file: StoredFile): Promise<string> {
    const content = await this.read(file)
    if (content === null) {
      throw new MemoryToolError(
        `${file.path} was changed by another writer at the same time; nothing was written. Retry.`,
      )
    }
    return content
  }

  /**
   * Writes `content` as the version after `previous` (null: a new file) in one transaction, then deletes
   * the older versions, oldest first. `beforeCommit` runs just before the write (the lock's check).
   * Refused when another writer took that version first.
   */
  async write(
    path: string,
    content: string,
    previous: StoredFile | null,
    beforeCommit: () => void,
  ): Promise<void> {
    const version = (previous?.version ?? 0) + 1
    const now = Date.now()
    beforeCommit()
    const { created } = await this.store.importSession({
      session: {
        id: `${this.prefix(path)}${String(version).padStart(VERSION_DIGITS, '0')}`,
        source: CLAUDE_MEMORY_SOURCE,
        userId: this.userId,
        title: path,
        startedAt: now,
        endedAt: now,
        endReason: CLAUDE_MEMORY_SOURCE,
      },
      messages: [{ role: 'assistant', content, timestamp: now }],
    })
    if (!created) {
      throw new MemoryToolError(
        `${path} was changed by another writer at the same time; nothing was written. Retry.`,
      )
    }
    for (const old of await this.versions(path)) {
      if (old.version < version) await this.store.deleteSession(old.sessionId)
    }
  }

  /** Deletes every version of `path`, oldest first, so a crash part-way leaves the newest as current. */
  async delete(path: string, beforeCommit: () => void): Promise<void> {
    beforeCommit()
    for (const old of await this.versions(path)) await this.store.deleteSession(old.sessionId)
  }
}
