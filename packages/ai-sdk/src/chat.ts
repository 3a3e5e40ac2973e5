import { type ChatMessage, EngramError, type MessageInput, type Store } from '@engram/core'
import { generateId, type ToolSet, type UIMessage, validateUIMessages } from 'ai'

type ValidateUIMessagesOptions<M extends UIMessage> = Parameters<typeof validateUIMessages<M>>[0]

/** The content-part type that carries one version of a UIMessage, unchanged, inside an Engram message. */
const MESSAGE_PART = 'ai_sdk_ui_message'
/** A marker: the chat keeps only its first `keep` messages (a regenerated or edited tail). */
const KEEP_PART = 'ai_sdk_chat_keep'

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
   * Makes the stored chat equal `messages`: messages are matched by id, and only new or changed ones
   * are written (one batch, so a save is applied whole or not at all); messages the list no longer has
   * after the common prefix (a regenerated answer) are dropped from the chat, not from search.
   * Returns the messages as stored: any without an id gets a new one.
   */
  saveChat<M extends UIMessage>(args: { id: string; messages: readonly M[] }): Promise<M[]>
}

interface ChatState {
  order: string[]
  latest: Map<string, UIMessage>
}

/** Replays a chat's Engram messages in insertion order. Linear in their number. */
function readChat(stored: readonly ChatMessage[]): ChatState {
  const order: string[] = []
  const latest = new Map<string, UIMessage>()
  const present = new Set<string>()
  for (const message of stored) {
    if (!Array.isArray(message.content)) continue
    for (const part of message.content as unknown as readonly Record<string, unknown>[]) {
      if (part.type === KEEP_PART && typeof part.keep === 'number') {
        for (const id of order.splice(part.keep)) present.delete(id)
      } else if (part.type === MESSAGE_PART) {
        const ui = part.message as UIMessage
        latest.set(ui.id, ui)
        if (!present.has(ui.id)) {
          present.add(ui.id)
          order.push(ui.id)
        }
      }
    }
  }
  return { order, latest }
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
    await store.createSession({
      id,
      source: options.source ?? CHAT_SOURCE,
      ...(options.userId === undefined ? {} : { userId: options.userId }),
    })
  }

  async function state(id: string): Promise<ChatState> {
    return (await store.getSession(id))
      ? readChat(await store.getMessages(id))
      : { order: [], latest: new Map() }
  }

  return {
    async loadChat<M extends UIMessage>(id: string, validation?: LoadChatOptions<M>): Promise<M[]> {
      const { order, latest } = await state(id)
      const messages = order.map((messageId) => latest.get(messageId)) as unknown[]
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
      const withIds = messages.map((message) => (message.id ? message : { ...message, id: newId() }))
      const { order, latest } = await state(id)
      let common = 0
      while (common < order.length && common < withIds.length && order[common] === withIds[common]?.id)
        common++
      const seen = new Set(order.slice(0, common))
      const batch: MessageInput[] =
        common < order.length ? [{ role: 'system', content: [{ type: KEEP_PART, keep: common }] }] : []
      for (const [index, message] of withIds.entries()) {
        if (index >= common && seen.has(message.id)) {
          throw new EngramError(
            'INVALID_ARGUMENT',
            `saveChat: message id ${JSON.stringify(message.id)} appears twice in chat ${JSON.stringify(id)}; give each message its own id; nothing was saved.`,
          )
        }
        seen.add(message.id)
        const previous = index < common ? latest.get(message.id) : undefined
        if (previous !== undefined && JSON.stringify(previous) === JSON.stringify(message)) continue
        batch.push(toEngram(message, previous ?? latest.get(message.id)))
      }
      if (batch.length > 0) {
        await ensureSession(id)
        await store.appendMessages(id, batch)
      }
      return withIds
    },
  }
}
