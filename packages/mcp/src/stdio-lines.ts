import { Transform, type TransformCallback } from 'node:stream'
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js'

/**
 * The longest line, newline included, that the SDK's stdio transport reads (its read buffer, 10 MiB). On a
 * longer one the SDK's transport closes, and the server with it.
 */
export const STDIO_LINE_LIMIT = STDIO_DEFAULT_MAX_BUFFER_SIZE

/** A line dropped as too long: its size, and its JSON-RPC request id when the line's start or end shows it. */
export interface OversizedLine {
  bytes: number
  id: string | number | undefined
}

/** How much of a dropped line's start and end is kept to find its request id. */
const EDGE = 512

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`
// The last key of the top-level object: any deeper key would be followed by more than one closing bracket.
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*$`)
// The first keys: "jsonrpc" and "method" may come before the id.
const ID_AT_START = new RegExp(
  String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,)*\s*"id"\s*:\s*${ID_VALUE}`,
)

/** The request id of a JSON-RPC line seen only by its first and last bytes, when either shows it. */
export function requestIdOf(start: string, end: string): string | number | undefined {
  const found = ID_AT_END.exec(end) ?? ID_AT_START.exec(start)
  if (!found?.[1]) return undefined
  try {
    return JSON.parse(found[1]) as string | number
  } catch {
    return undefined
  }
}

/**
 * Hands stdin to the SDK's transport one whole line at a time and drops a line longer than `limit`
 * instead, reporting it to `onOversized`: the transport never sees it, so the server keeps serving (and can
 * answer the request with an error). Holds at most `limit` bytes; linear in its input.
 */
export class LineLimit extends Transform {
  private parts: Buffer[] = []
  private held = 0
  /** Bytes of the line being dropped so far; 0 when none is. */
  private dropped = 0
  private opening = ''
  private closing: Buffer = Buffer.alloc(0)

  constructor(
    private readonly limit: number,
    private readonly onOversized: (line: OversizedLine) => void,
  ) {
    super()
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let from = 0
    while (from < chunk.length) {
      const newline = chunk.indexOf(10, from)
      const to = newline === -1 ? chunk.length : newline + 1
      this.addPiece(chunk.subarray(from, to), newline !== -1)
      from = to
    }
    done()
  }

  override _flush(done: TransformCallback): void {
    if (this.dropped === 0 && this.held > 0) this.push(Buffer.concat(this.parts))
    done()
  }

  private addPiece(piece: Buffer, complete: boolean): void {
    if (this.dropped === 0 && this.held + piece.length <= this.limit) {
      this.parts.push(piece)
      this.held += piece.length
      if (complete) {
        this.push(Buffer.concat(this.parts))
        this.parts = []
        this.held = 0
      }
      return
    }
    if (this.dropped === 0) {
      const line = Buffer.concat(this.parts)
      this.opening = Buffer.concat([line.subarray(0, EDGE), piece.subarray(0, EDGE)])
        .subarray(0, EDGE)
        .toString('utf8')
      this.closing = line.subarray(-EDGE)
      this.dropped = line.length
      this.parts = []
      this.held = 0
    }
    this.dropped += piece.length
    this.closing = Buffer.concat([this.closing, piece.subarray(-EDGE)]).subarray(-EDGE)
    if (!complete) return
    const bytes = this.dropped
    this.dropped = 0
    this.onOversized({ bytes, id: requestIdOf(this.opening, this.closing.toString('utf8')) })
  }
}
