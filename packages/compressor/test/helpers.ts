import type { ChatMessage, ToolCall } from '@engram/core'
import type { CompressibleMessage } from '../src/messages.ts'
import type { Summarizer, SummaryRequest } from '../src/summarizer.ts'

export const system = (content = 'You are a coding agent.'): ChatMessage => ({ role: 'system', content })
export const user = (content: string): ChatMessage => ({ role: 'user', content })
export const assistant = (content: string): ChatMessage => ({ role: 'assistant', content })

export function call(id: string, name: string, args: Record<string, unknown> | string): ToolCall {
  const text = typeof args === 'string' ? args : JSON.stringify(args)
  return { id, type: 'function', function: { name, arguments: text } }
}

export const callsTo = (...calls: ToolCall[]): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: calls,
})
export const result = (id: string, content: string): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  content,
})

/** Gives messages consecutive store ids starting at `first`. */
export function withIds(messages: ChatMessage[], first = 1): CompressibleMessage[] {
  return messages.map((m, i) => ({ ...m, id: first + i }))
}

/** A summariser that answers from a script and records every request. */
export function scriptedSummarizer(
  ...answers: (string | Error)[]
): Summarizer & { requests: SummaryRequest[] } {
  const requests: SummaryRequest[] = []
  return {
    requests,
    async summarize(request) {
      requests.push(request)
      const answer = answers[Math.min(requests.length - 1, answers.length - 1)] ?? 'summary'
      if (answer instanceof Error) throw answer
      return answer
    },
  }
}

export function errorWith(props: Record<string, unknown>, message = 'boom'): Error {
  return Object.assign(new Error(message), props)
}

/** A coding conversation of `rounds` user asks, each answered with a tool call, a large output and a reply. */
export function codingConversation(rounds: number, outputChars = 2_000): ChatMessage[] {
  const messages: ChatMessage[] = [system()]
  for (let r = 0; r < rounds; r++) {
    messages.push(user(`Step ${r}: please look at src/module${r}.ts and fix the bug.`))
    messages.push(callsTo(call(`c${r}`, 'read_file', { path: `src/module${r}.ts` })))
    messages.push(
      result(`c${r}`, `// module ${r}\n${'const value = compute(input)\n'.repeat(outputChars / 30)}`),
    )
    messages.push(assistant(`Fixed the bug in src/module${r}.ts by guarding against undefined input.`))
  }
  return messages
}

/** The roles in order, for compact structural assertions. */
export const roles = (messages: readonly ChatMessage[]): string => messages.map((m) => m.role[0]).join('')
