import { badResponse, type Endpoint, type SdkErrors, throwIfCancelled, toProviderError } from './errors.ts'
import type { ChatRequest, ChatResult } from './types.ts'

/** One vendor's half of a chat call: how to send it each way and how to read each answer. */
interface VendorCall<Event> {
  /** The vendor SDK, loaded on the first call; its error classes classify what the call threw. */
  sdk(): Promise<SdkErrors>
  /** The non-streaming request; resolves with the parsed body (JSON, or the text of anything else). */
  json(): Promise<unknown>
  /** The streaming request, with the raw response to check before the stream is read. */
  stream(): Promise<{ data: AsyncIterable<Event>; response: Response }>
  fromJson(data: unknown): ChatResult
  fromStream(events: AsyncIterable<Event>, onText: (delta: string) => void): Promise<ChatResult>
}

/** What a stream had delivered when it failed: the text so far, marked as interrupted. */
function interrupted(text: string): ChatResult {
  return {
    message: { role: 'assistant', content: text },
    finishReason: 'interrupted',
    usage: { inputTokens: 0, outputTokens: 0 },
  }
}

/**
 * The call path both SDK providers share: JSON when the request has no `onText`, otherwise an event stream
 * that must be one (a gateway's HTML page is shown, not parsed as an empty stream) and must not have been
 * cut by an abort. Every failure leaves as a {@link ProviderError}; when text had streamed before it, the
 * error's `partial` holds that text (`finishReason: 'interrupted'`).
 */
export async function callVendor<Event>(
  endpoint: Endpoint,
  request: ChatRequest,
  vendor: VendorCall<Event>,
): Promise<ChatResult> {
  let streamed = ''
  try {
    if (!request.onText) return vendor.fromJson(await vendor.json())
    const onText = request.onText
    const { data, response } = await vendor.stream()
    if (!response.headers.get('content-type')?.includes('text/event-stream')) {
      throw badResponse(endpoint, 'not as an event stream', await response.text())
    }
    const result = await vendor.fromStream(data, (delta) => {
      streamed += delta
      onText(delta)
    })
    throwIfCancelled(request.signal)
    return result
  } catch (error) {
    const failure = toProviderError(error, endpoint, await vendor.sdk().catch(() => undefined))
    if (streamed) failure.partial ??= interrupted(streamed)
    throw failure
  }
}
