import { type ChatMessage, EngramError, type MessageInput, type Store } from '@engram/core'
import { generateId, type ToolSet, type UIMessage, validateUIMessages } from 'ai'

type ValidateUIMessagesOptions<M extends UIMessage> = Parameters<typeof validateUIMessages<M>>[0]

/** The content-part type that carries one version of a UIMessage, unchanged, inside an Engram message. */
const MESSAGE_PART = 'ai_sdk_ui_message'
/** A marker of earlier versions: the chat keeps only its first `keep` messages. Still replayed. */
const KEEP_PART = 'ai_sdk_chat_keep'
/** A marker: these message ids leave the chat (a regenerated answer, an edited tail). */
const DROP_PART = 'ai_sdk_chat_drop'
/** The chats whose loaded ids a ChatStore remembers (the least recently used are forgotten first). */
const REMEMBERED_CHATS = 1_000

/** The source of the Engram sessions a chat store creates. */
export const CHAT_SOURCE = 'ai-sdk'

export type ChatStoreStore = Pick<Store, 'getSession' | 'createSession' | 'appendMessages' | 'getMessages'>

export interface ChatStoreOptions {
  store: ChatStoreStore
  /** The source and user stored on a chat's Engram session when it is created. */
  source?: string
  userId?: string
  /** Makes the ids of messages saved without one; default `msg-` + the AI SDK's `generateId()`. */
  generateMessageId?: () => string
}

/** What `loadChat` checks the stored messages against: the current tools, metadata and data schemas. */
export type LoadChatOptions<M extends UIMessage> = Omit<
  ValidateUIMessagesOptions<M>,
  'messages' | 'tools'
> & {
  /** The tools offered now: stored tool parts are checked against their input schemas. */
  tools?: ToolSet
}

export interface ChatStore {
  /** The chat's messages (none for a chat never saved), validated with `validateUIMessages`. */
  loadChat<M extends UIMessage = UIMessage>(id: string, options?: LoadChatOptions<M>): Promise<M[]>
  /**
   * Saves `messages` into the chat, merged per message id: only new or changed ones are written (one
   * batch, so a save is applied whole or not at all). A stored message the list does not have leaves the
   * chat (not search) when this store's `loadChat` returned it (a regenerated answer, an edited tail), or
   * when this store never loaded the chat (the list is then the chat); a message another writer saved
   * since the load stays, so writers that each load, append and save lose nothing. Messages that
   * `loadChat` could not read back (an unknown part type, an id that is not a string, parts that are not
   * a list) are refused with INVALID_ARGUMENT and nothing is saved.
   * Returns the messages as stored: any without an id gets a new one.
   */
  saveChat<M extends UIMessage>(args: { id: string; messages: readonly M[] }): Promise<M[]>
}

interface ChatState {
  /** The chat's messages in order: the latest version of each. */
  chat: Map<string, UIMessage>
  /** The latest version of every message ever saved, also those the chat dropped. */
  versions: Map<string, UIMessage>
}

/** Replays a chat's Engram messages in insertion order. Linear in their number (and the dropped ids). */
function readChat(stored: readonly ChatMessage[]): ChatState {
  // A Map keeps insertion order: a new version keeps its message's place, a re-added message goes last.
  const chat = new Map<string, UIMessage>()
  const versions = new Map<string, UIMessage>()
  for (const message of stored) {
    if (!Array.isArray(message.content)) continue
    for (const part of message.content as unknown as readonly Record<string, unknown>[]) {
      if (part.type === KEEP_PART && typeof part.keep === 'number') {
        for (const id of [...chat.keys()].slice(part.keep)) chat.delete(id)
      } else if (part.type === DROP_PART && Array.isArray(part.ids)) {
        for (const id of part.ids) chat.delete(id as string)
      } else if (part.type === MESSAGE_PART) {
        const ui = part.message as UIMessage
        chat.set(ui.id, ui)
        versions.set(ui.id, ui)
      }
    }
  }
  return { chat, versions }
}

const refused = (message: string) => new EngramError('INVALID_ARGUMENT', message)

/**
 * What the AI SDK's validation found wrong, by field (never the value, which may hold anything): e.g.
 * `parts.0.type: not one of the AI SDK's part types; id: Invalid input: expected string, received number`.
 */
function invalidParts(error: unknown): string {
  const issues = (error as { cause?: { issues?: unknown } } | null)?.cause?.issues
  if (!Array.isArray(issues) || issues.length === 0) return 'not a UIMessage'
  return (issues as { path?: unknown[]; code?: string; message?: string }[])
    .slice(0, 3)
    .map((issue) => {
      const path = (issue.path ?? []).slice(1).join('.') || 'the message'
      const what =
        issue.code === 'invalid_union'
          ? "not one of the AI SDK's part types"
          : String(issue.message).slice(0, 120)
      return `${path}: ${what}`
    })
    .join('; ')
}

/**
 * Refuses, before anything is written, a list `loadChat` could not read back: the AI SDK's own
 * `validateUIMessages` (the check loadChat runs) on the list as given, and one id per message.
 */
async function checkLoadable(id: string, messages: readonly UIMessage[]): Promise<void> {
  const chat = JSON.stringify(id)
  for (const [index, message] of messages.entries()) {
    try {
      await validateUIMessages({ messages: [message] })
    } catch (error) {
      throw refused(
        `saveChat: message ${index + 1} of chat ${chat} (id ${JSON.stringify((message as { id?: unknown } | null)?.id) ?? 'none'}) could not be loaded back, so nothing was saved: ${invalidParts(error)}. Send UIMessages as the AI SDK makes them: a string id, a role (system, user, assistant) and a list of parts of its types (text, reasoning, tool-*, data-*, …).`,
      )
    }
  }
  const seen = new Set<string>()
  for (const message of messages) {
    if (seen.has(message.id))
      throw refused(
        `saveChat: message id ${JSON.stringify(message.id)} appears twice in chat ${chat}; give each message its own id; nothing was saved.`,
      )
    seen.add(message.id)
  }
}

/** The searchable text of a UIMessage: its text and reasoning, tool names, inputs and outputs. */
function searchableText(message: UIMessage): string {
  const texts: string[] = []
  for (const part of message.parts as readonly Record<string, unknown>[]) {
    if ((part.type === 'text' || part.type === 'reasoning') && typeof part.text === 'string')
      texts.push(part.text)
    else if (
      typeof part.type === 'string' &&
      (part.type.startsWith('tool-') || part.type === 'dynamic-tool')
    ) {
      const name = typeof part.toolName === 'string' ? part.toolName : part.type.slice('tool-'.length)
      texts.push(name)
      for (const key of ['input', 'output', 'errorText'] as const) {
        const value = part[key]
        if (value !== undefined) texts.push(typeof value === 'string' ? value : JSON.stringify(value))
      }
    }
  }
  return texts.join('\n')
}

function toEngram(message: UIMessage, previous: UIMessage | undefined): MessageInput {
  const raw = { type: MESSAGE_PART, message }
  const text = searchableText(message)
  // A new version whose text did not change (a tool result added to a call, new metadata) is not
  // indexed again, so search returns each thing said once.
  const indexed = previous !== undefined && searchableText(previous) === text ? '' : text
  return { role: message.role, content: indexed ? [{ type: 'text', text: indexed }, raw] : [raw] }
}

/** Durable `UIMessage[]` chats in an Engram store: one Engram session per chat id. */
export function createChatStore(options: ChatStoreOptions): ChatStore {
  const { store } = options
  const newId = options.generateMessageId ?? (() => `msg-${generateId()}`)

  async function ensureSession(id: string): Promise<void> {
    if (await store.getSession(id)) return
    await store
      .createSession({
        id,
        source: options.source ?? CHAT_SOURCE,
        ...(options.userId === undefined ? {} : { userId: options.userId }),
      })
      .catch((error: unknown) => {
        // Another writer created it between the read and the write: the same chat.
        if (!(error instanceof EngramError && error.code === 'SESSION_EXISTS')) throw error
      })
  }

  async function state(id: string): Promise<ChatState> {
    return (await store.getSession(id))
      ? readChat(await store.getMessages(id))
      : { chat: new Map(), versions: new Map() }
  }

  // Per chat, the ids this store's loadChat returned: a save drops only messages its writer had seen.
  const loaded = new Map<string, Set<string>>()
  function remember(id: string, ids: Iterable<string>): void {
    const known = loaded.get(id) ?? new Set<string>()
    loaded.delete(id)
    loaded.set(id, known)
    for (const messageId of ids) known.add(messageId)
    if (loaded.size > REMEMBERED_CHATS) loaded.delete(loaded.keys().next().value as string)
  }

  return {
    async loadChat<M extends UIMessage>(id: string, validation?: LoadChatOptions<M>): Promise<M[]> {
      const { chat } = await state(id)
      remember(id, chat.keys())
      const messages = [...chat.values()] as unknown[]
      if (messages.length === 0) return []
      return validateUIMessages<M>({ ...validation, messages } as ValidateUIMessagesOptions<M>)
    },

    async saveChat<M extends UIMessage>({
      id,
      messages,
    }: {
      id: string
      messages: readonly M[]
    }): Promise<M[]> {
      if (!Array.isArray(messages))
        throw refused(
          `saveChat: messages of chat ${JSON.stringify(id)} must be a list of UIMessages; nothing was saved.`,
        )
      const withIds = messages.map((message) =>
        message !== null && typeof message === 'object' && (message.id === '' || message.id === undefined)
          ? { ...message, id: newId() }
          : message,
      )
      await checkLoadable(id, withIds)
      const { chat, versions } = await state(id)
      const listed = new Set(withIds.map((message) => message.id))
      const seen = loaded.get(id)
      const dropped = [...chat.keys()].filter(
        (messageId) => !listed.has(messageId) && (seen?.has(messageId) ?? true),
      )
      const batch: MessageInput[] = dropped.length
        ? [{ role: 'system', content: [{ type: DROP_PART, ids: dropped }] }]
        : []
      for (const message of withIds) {
        const current = chat.get(message.id)
        if (current !== undefined && JSON.stringify(current) === JSON.stringify(message)) continue
        batch.push(toEngram(message, current ?? versions.get(message.id)))
      }
      if (batch.length > 0) {
        await ensureSession(id)
        await store.appendMessages(id, batch)
      }
      return withIds
    },
  }
}
