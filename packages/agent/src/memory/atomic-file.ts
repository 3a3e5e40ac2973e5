import { randomBytes } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import lockfile from 'proper-lockfile'
import { MemoryRefusal } from './operations.ts'

/** A lock older than this (its holder stopped refreshing it, e.g. was killed) is taken over. */
const STALE_MS = 5_000
const LOCK_RETRIES = { retries: 200, factor: 1.3, minTimeout: 5, maxTimeout: 250, randomize: true }

const tempPrefix = (path: string) => `.${basename(path)}.`
const TEMP_SUFFIX = '.tmp'

/** The file's bytes, or null when it does not exist yet. */
export async function readIfExists(path: string): Promise<Uint8Array | null> {
  try {
    return await readFile(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/**
 * Runs `work` holding `<path>.lock` (a proper-lockfile lock directory, so it works across processes and
 * machines sharing a file system). A lock left by a killed process is taken over once it is stale. The
 * file need not exist: its folder is created. `work` gets a check that throws when the lock was lost
 * (taken over after a long stall), to call just before committing.
 */
export async function withFileLock<T>(path: string, work: (stillHeld: () => void) => Promise<T>): Promise<T> {
  await mkdir(dirname(path), { recursive: true })
  let lost: Error | null = null
  let release: () => Promise<void>
  try {
    release = await lockfile.lock(path, {
      realpath: false,
      stale: STALE_MS,
      retries: LOCK_RETRIES,
      onCompromised: (error) => {
        lost = error
      },
    })
  } catch (error) {
    throw new MemoryRefusal(
      'locked',
      `Writing ${basename(path)}: another process held ${path}.lock for too long (${(error as Error).message}). Retry in a moment; if no agent is running, delete the lock folder.`,
    )
  }
  const stillHeld = () => {
    if (lost) {
      throw new MemoryRefusal(
        'locked',
        `Writing ${basename(path)}: the lock was lost while writing (${(lost as Error).message}); nothing was written. Retry.`,
      )
    }
  }
  try {
    return await work(stillHeld)
  } finally {
    if (!lost) await release().catch(() => undefined)
  }
}

async function fsyncDirectory(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  try {
    handle = await open(dir, 'r')
    await handle.sync()
  } catch (error) {
    // Some platforms (Windows) cannot open or sync a directory; the rename is still atomic there.
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw error
  } finally {
    await handle?.close()
  }
}

/**
 * Replaces `path` with `content` atomically: a temp file in the same folder is written and fsynced, renamed
 * over `path`, and the folder is fsynced, so a reader (or a crash) sees the old file or the new one, never
 * a mix. Call under {@link withFileLock}: temp files of earlier writers that were killed are removed first.
 */
export async function writeFileAtomic(
  path: string,
  content: string,
  beforeRename: () => void,
): Promise<void> {
  const dir = dirname(path)
  await removeStaleTemps(path)
  const temp = join(dir, `${tempPrefix(path)}${process.pid}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`)
  try {
    const handle = await open(temp, 'wx', 0o600)
    try {
      await handle.writeFile(content, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    beforeRename()
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  await fsyncDirectory(dir)
}

/** Only the lock holder writes temp files, so under the lock every one left over is a dead writer's. */
async function removeStaleTemps(path: string): Promise<void> {
  const prefix = tempPrefix(path)
  const names = await readdir(dirname(path))
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith(TEMP_SUFFIX))
      .map((name) => rm(join(dirname(path), name), { force: true })),
  )
}
