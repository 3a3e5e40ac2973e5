import { once } from 'node:events'
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs'
import { EngramError } from '@engram/core'
import type { ExportedSession } from './document.ts'
import { JsonlReader, jsonlEnd, jsonlHeader, jsonlLines } from './formats.ts'

/**
 * The longest line of a JSONL export that is read: one record (a session row, one message or one
 * episode). A line past it is refused once this many bytes of it were seen, never read whole (a string
 * of 600 MB is past what V8 can hold).
 */
const MAX_JSONL_LINE_BYTES = 128 * 1024 * 1024

/** A line past {@link MAX_JSONL_LINE_BYTES}: which one, and why it cannot be imported. */
function lineTooLong(file: string, n: number, max: number): EngramError {
  return new EngramError(
    'INVALID_ARGUMENT',
    `${file} is not an export Engram can read: line ${n} is longer than ${max / 1024 / 1024} MiB, the most one record (a session, a message or an episode) may take. It was not read whole; nothing of that session was imported. Check the file is an \`engram export\` file; a message this large cannot be imported.`,
  )
}

/**
 * The lines of a file (without their \n or \r\n), one at a time as the file is read; a line longer than
 * `maxBytes` throws when its first `maxBytes + 1` bytes were seen, so no line is held whole past it.
 */
async function* fileLines(
  path: string,
  file: string,
  maxBytes = MAX_JSONL_LINE_BYTES,
): AsyncGenerator<string> {
  let parts: Buffer[] = []
  let length = 0
  let n = 1
  const text = () => {
    const line = Buffer.concat(parts, length).toString('utf8')
    return line.endsWith('\r') ? line.slice(0, -1) : line
  }
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let start = 0
    for (;;) {
      const newline = chunk.indexOf(10, start)
      const end = newline < 0 ? chunk.length : newline
      length += end - start
      if (length > maxBytes) throw lineTooLong(file, n, maxBytes)
      parts.push(chunk.subarray(start, end))
      if (newline < 0) break
      yield text()
      parts = []
      length = 0
      n++
      start = newline + 1
    }
  }
  if (length > 0) yield text()
}

/** The first line of a file, read without reading the rest; '' when it is longer than `maxBytes`. */
export async function firstLine(path: string, maxBytes = 64 * 1024): Promise<string> {
  try {
    for await (const line of fileLines(path, path, maxBytes)) return line
    return ''
  } catch (error) {
    if (error instanceof EngramError) return ''
    throw error
  }
}

/**
 * The sessions of a JSONL export, one at a time as the file is read: memory holds one session, whatever
 * the file's size. A malformed line, a line past {@link MAX_JSONL_LINE_BYTES} or a file cut short throws
 * (INVALID_ARGUMENT naming the line) when it is reached; the sessions before it have been handed out whole.
 */
export async function* readJsonlSessions(path: string, file: string): AsyncGenerator<ExportedSession> {
  const reader = new JsonlReader(file)
  let n = 0
  for await (const line of fileLines(path, file)) {
    const done = reader.line(line, ++n)
    if (done) yield done
  }
  const last = reader.finish()
  if (last) yield last
}

/** Writes a line, waiting while the stream's buffer is full, so a slow reader bounds the memory used. */
async function writeLine(out: NodeJS.WritableStream, line: string): Promise<void> {
  if (!out.write(`${line}\n`)) await once(out, 'drain')
}

/**
 * Writes the sessions as a JSONL export to `out`, one session at a time, and returns how many it wrote.
 * The end record comes last, so a reader knows the file is whole.
 */
export async function writeJsonl(
  out: NodeJS.WritableStream,
  sessions: AsyncIterable<ExportedSession>,
  onSession: (session: ExportedSession) => void,
): Promise<number> {
  let count = 0
  await writeLine(out, jsonlHeader(Date.now()))
  for await (const exported of sessions) {
    for (const line of jsonlLines(exported)) await writeLine(out, line)
    count++
    onSession(exported)
  }
  await writeLine(out, jsonlEnd(count))
  return count
}

/**
 * writeJsonl into `path` through a temporary file beside it, renamed when complete: an export that fails
 * midway leaves no file, and an older file at `path` stays until the new one is whole.
 */
export async function writeJsonlFile(
  path: string,
  sessions: AsyncIterable<ExportedSession>,
  onSession: (session: ExportedSession) => void,
): Promise<number> {
  const temp = `${path}.${process.pid}.tmp`
  const out = createWriteStream(temp)
  try {
    await once(out, 'open')
    const count = await writeJsonl(out, sessions, onSession)
    out.end()
    await once(out, 'finish')
    renameSync(temp, path)
    return count
  } catch (error) {
    out.destroy()
    rmSync(temp, { force: true })
    throw error
  }
}
