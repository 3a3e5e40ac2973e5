import { once } from 'node:events'
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs'
import { createInterface } from 'node:readline'
import type { ExportedSession } from './document.ts'
import { JsonlReader, jsonlEnd, jsonlHeader, jsonlLines } from './formats.ts'

/** The first line of a file (up to its first newline), read without reading the rest. */
export async function firstLine(path: string): Promise<string> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })
  try {
    for await (const line of lines) return line
    return ''
  } finally {
    lines.close()
  }
}

/**
 * The sessions of a JSONL export, one at a time as the file is read: memory holds one session, whatever
 * the file's size. A malformed line or a file cut short throws (INVALID_ARGUMENT naming the line) when it
 * is reached; the sessions before it have been handed out whole.
 */
export async function* readJsonlSessions(path: string, file: string): AsyncGenerator<ExportedSession> {
  const reader = new JsonlReader(file)
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })
  let n = 0
  try {
    for await (const line of lines) {
      const done = reader.line(line, ++n)
      if (done) yield done
    }
  } finally {
    lines.close()
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
