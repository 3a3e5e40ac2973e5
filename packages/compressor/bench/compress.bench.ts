/**
 * The compressor's own time on a synthetic ~200K-token coding conversation, with a summariser that answers
 * instantly, next to a floor measured in the same run: counting the conversation's tokens once.
 * Run: npx tsx packages/compressor/bench/compress.bench.ts
 */
import type { ChatMessage } from '@engram/core'
import { compress } from '../src/compress.ts'
import { bpeTokenCounter, countMessages } from '../src/tokens.ts'

const TARGET_TOKENS = 200_000
const RUNS = 7

function conversation(): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a coding agent.' }]
  for (let i = 0; countMessages(bpeTokenCounter, messages) < TARGET_TOKENS; i++) {
    const lines = Array.from(
      { length: 60 },
      (_, l) => `  const v${l} = await load${i}(${l}) // line ${l} of file ${i}`,
    )
    messages.push({ role: 'user', content: `Step ${i}: fix the failing test in src/feature${i}.ts` })
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `c${i}`,
          type: 'function',
          function: { name: 'read_file', arguments: `{"path":"src/feature${i}.ts"}` },
        },
      ],
    })
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: lines.join('\n') })
    messages.push({
      role: 'assistant',
      content: `Fixed src/feature${i}.ts: the loader now awaits step ${i}.`,
    })
  }
  return messages
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

async function main(): Promise<void> {
  const messages = conversation()
  const tokens = countMessages(bpeTokenCounter, messages)
  const summarizer = { summarize: async () => '## Goal\nKeep fixing the features.' }
  const floor: number[] = []
  const compressor: number[] = []
  let after = 0
  for (let run = 0; run < RUNS; run++) {
    let start = performance.now()
    countMessages(bpeTokenCounter, messages)
    floor.push(performance.now() - start)
    start = performance.now()
    const result = await compress(messages, { window: 200_000, summarizer })
    compressor.push(performance.now() - start)
    after = result.report.tokensAfter
  }
  const floorMs = median(floor)
  const compressMs = median(compressor)
  console.log(
    `conversation: ${messages.length} messages, ${tokens} tokens (o200k_base) -> ${after} after compression`,
  )
  console.log(`floor (count tokens once): ${floorMs.toFixed(1)} ms (median of ${RUNS})`)
  console.log(`compress (summariser instant): ${compressMs.toFixed(1)} ms (median of ${RUNS})`)
  console.log(`ratio compress / floor: ${(compressMs / floorMs).toFixed(2)}`)
}

await main()
