import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import {
  access,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises'
import { hostname } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import lockfile from 'proper-lockfile'

/** What went wrong with a file, for the caller to turn into its own error. */
export type FileFailure =
  /** Another process held the lock for too long. */
  | 'locked'
  /** The lock was taken over while writing (a long stall); nothing was written. */
  | 'lock_lost'
  /** The folder or file cannot be written or read by this user, or is on a read-only file system. */
  | 'permission'
  /** A file is where a folder should be, or a folder where the file should be. */
  | 'wrong_kind'
  | 'disk_full'
  | 'io'

/** A file-system failure of {@link withFileLock} or {@link writeFileAtomic}; `path` is the one that failed. */
export class FileError extends Error {
  override readonly name = 'FileError'

  constructor(
    readonly failure: FileFailure,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

const FAILURE_OF_ERRNO: Record<string, FileFailure> = {
  EACCES: 'permission',
  EPERM: 'permission',
  EROFS: 'permission',
  ENOTDIR: 'wrong_kind',
  EISDIR: 'wrong_kind',
  EEXIST: 'wrong_kind',
  ENOSPC: 'disk_full',
  EDQUOT: 'disk_full',
}

/** `error` as a {@link FileError} about `path` (kept as it is when it already is one). */
function asFileError(error: unknown, path: string): FileError {
  if (error instanceof FileError) return error
  const code = (error as NodeJS.ErrnoException).code ?? ''
  const detail = error instanceof Error ? error.message : String(error)
  return new FileError(
    FAILURE_OF_ERRNO[code] ?? 'io',
    (error as NodeJS.ErrnoException).path ?? path,
    detail,
    {
      cause: error,
    },
  )
}

/** A lock older than this (its holder stopped refreshing it, e.g. was killed) is taken over. */
const STALE_MS = 5_000
/**
 * A lock whose holder is a live process of this machine is not stale before this age: a writer stalled on
 * a loaded machine (its thread blocked, its disk slow) keeps its lock instead of having it taken over
 * mid-write, which would let two writers replace the file at once. Past this age a holder is taken to
 * hang (or its pid to have been reused), and the lock is taken over like any other.
 */
const LIVE_HOLDER_STALE_MS = 60_000
const LOCK_RETRIES = { retries: 200, factor: 1.3, minTimeout: 5, maxTimeout: 250, randomize: true }

const tempPrefix = (path: string) => `.${basename(path)}.`
const TEMP_SUFFIX = '.tmp'

/** The file's bytes, or null when it does not exist yet. */
export async function readIfExists(path: string): Promise<Uint8Array | null> {
  try {
    return await readFile(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw asFileError(error, path)
  }
}

/**
 * Where writes to `path` go: the target of a symbolic link (followed to the end), so a linked memory file
 * stays a link and its target is replaced; `path` itself otherwise (also when it does not exist yet).
 */
async function writeTarget(path: string): Promise<string> {
  try {
    const stats = await lstat(path)
    return stats.isSymbolicLink() ? await realpath(path) : resolve(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      // A dangling link: its target is created where the link points.
      return resolve(path)
    }
    throw asFileError(error, path)
  }
}

/**
 * A lock that can never become stale by proper-lockfile's rule is taken over at once: a regular file where
 * the lock folder should be, or a folder whose mtime is in the future (a clock set back, a copied folder).
 */
async function clearImpossibleLock(lockPath: string): Promise<void> {
  const stats = await lstat(lockPath).catch(() => null)
  if (!stats) return
  if (stats.isDirectory() && stats.mtimeMs <= Date.now() + STALE_MS) return
  await rm(lockPath, { recursive: true, force: true }).catch((error: unknown) => {
    throw asFileError(error, lockPath)
  })
}

/**
 * Runs `work` holding `<path>.lock` (a proper-lockfile lock directory, so it works across processes and
 * machines sharing a file system). A lock left by a killed process is taken over once it is stale; a lock
 * that cannot be one (a file, or a folder from the future) at once. The file need not exist: its folder is
 * created. A folder this user cannot write fails at once, before any wait. `work` gets a check that throws
 * when the lock was lost (taken over after a long stall), to call just before committing. Throws
 * {@link FileError}.
 */
export async function withFileLock<T>(path: string, work: (stillHeld: () => void) => Promise<T>): Promise<T> {
  const dir = dirname(path)
  try {
    await mkdir(dir, { recursive: true })
    await access(dir, fs.constants.W_OK)
  } catch (error) {
    throw asFileError(error, dir)
  }
  await clearImpossibleLock(`${path}.lock`)
  const holderPath = holderFile(path)
  const lockFs = holderAwareFs(`${resolve(path)}.lock`, holderPath)
  let lost: Error | null = null
  let release: () => Promise<void>
  try {
    release = await lockfile.lock(path, {
      realpath: false,
      stale: STALE_MS,
      retries: LOCK_RETRIES,
      fs: lockFs.fs,
      onCompromised: (error) => {
        lost = error
      },
    })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw asFileError(error, `${path}.lock`)
    throw new FileError(
      'locked',
      `${path}.lock`,
      `another process held ${path}.lock for too long (${(error as Error).message})`,
      { cause: error },
    )
  }
  const stillHeld = () => {
    if (lost) {
      throw new FileError(
        'lock_lost',
        `${path}.lock`,
        `the lock was lost while writing (${(lost as Error).message})`,
        {
          cause: lost,
        },
      )
    }
  }
  try {
    // only after a takeover: that is when a waiter killed mid-takeover can have left a folder aside
    if (lockFs.tookOver()) await removeAbandonedTakeovers(path)
    await writeFile(holderPath, JSON.stringify({ pid: process.pid, host: hostname() }), {
      mode: 0o600,
    }).catch((error: unknown) => {
      throw asFileError(error, holderPath)
    })
    return await work(stillHeld)
  } finally {
    if (!lost) {
      await rm(holderPath, { force: true }).catch(() => undefined)
      lockFs.releasing()
      await release().catch(() => undefined)
    }
  }
}

/** Who holds `<path>.lock`: `{ pid, host }`, written by the holder once it has the lock (a killed one's stays). */
const holderFile = (path: string) => `${path}.lock.holder`

/** Whether the holder file names a live process of this machine other than this one. */
function liveHolderHere(text: string): boolean {
  let holder: { pid?: unknown; host?: unknown }
  try {
    holder = JSON.parse(text) as typeof holder
  } catch {
    return false
  }
  // a positive integer only: kill(0 or a negative pid) would ask about whole process groups
  if (!Number.isInteger(holder.pid) || (holder.pid as number) <= 0) return false
  if (holder.host !== hostname() || holder.pid === process.pid) return false
  try {
    process.kill(holder.pid as number, 0)
    return true
  } catch (error) {
    // EPERM: the process exists and belongs to another user
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Where a waiter moves a stale lock folder to remove it (see holderAwareFs); `<path>.lock.takeover-…`. */
const TAKEOVER_INFIX = '.lock.takeover-'

/**
 * The file system proper-lockfile runs on, with two changes.
 * - Stale: the lock folder of a live holder of this machine reads as fresh until LIVE_HOLDER_STALE_MS,
 *   whatever its mtime (which the holder refreshes only while its thread runs). A dead holder's lock,
 *   another machine's, or one without a readable holder file keeps the mtime rule (STALE_MS).
 * - Taken over: proper-lockfile removes a stale lock folder and then creates its own, so two waiters that
 *   both saw it stale could each remove it, the second removing the first one's new lock: two holders,
 *   one of which deletes the other's temp file or overwrites its write. Here a waiter first moves the
 *   folder aside (a rename: atomic, one mover wins) and removes it only when it is the folder it saw stale
 *   (the same inode and mtime); a fresh lock moved aside by mistake is put back at once.
 * `releasing()` marks the holder's own removal of its lock, which is never a takeover; `tookOver()` tells
 * whether this waiter removed a stale lock.
 */
export function holderAwareFs(
  lockPath: string,
  holderPath: string,
): { fs: typeof fs; releasing: () => void; tookOver: () => boolean } {
  // the lock folder as last seen: its inode and mtime (an inode number can be reused by a new folder)
  let seen: { ino: number; mtimeMs: number } | null = null
  let ownRelease = false
  let removedStale = false
  const stat = ((
    target: fs.PathLike,
    callback: (error: NodeJS.ErrnoException | null, stats: fs.Stats) => void,
  ) => {
    fs.stat(target, (error, stats) => {
      if (error || target !== lockPath) return callback(error, stats)
      seen = { ino: stats.ino, mtimeMs: stats.mtimeMs }
      const age = Date.now() - stats.mtimeMs
      if (age < STALE_MS || age >= LIVE_HOLDER_STALE_MS) return callback(null, stats)
      fs.readFile(holderPath, 'utf8', (readError, text) => {
        if (readError || !liveHolderHere(text)) return callback(null, stats)
        callback(
          null,
          Object.assign(Object.create(Object.getPrototypeOf(stats)), stats, { mtime: new Date() }),
        )
      })
    })
  }) as typeof fs.stat
  const rmdir = ((target: fs.PathLike, callback: (error: NodeJS.ErrnoException | null) => void) => {
    if (target !== lockPath || ownRelease) return fs.rmdir(target, callback)
    const aside = `${lockPath.slice(0, -'.lock'.length)}${TAKEOVER_INFIX}${process.pid}-${randomBytes(4).toString('hex')}`
    const isSeen = (stats: fs.Stats) => stats.ino === seen?.ino && stats.mtimeMs === seen.mtimeMs
    // ENOENT makes proper-lockfile try to create its own lock, which fails while another holds one
    const changedHands = () =>
      callback(Object.assign(new Error(`${lockPath} changed hands while stale`), { code: 'ENOENT' }))
    // not the folder seen stale any more (another waiter took it over): left alone
    fs.stat(lockPath, (checkError, current) => {
      if (checkError || !isSeen(current)) return changedHands()
      // another waiter moved it first (ENOENT): proper-lockfile then tries to create its own lock
      fs.rename(lockPath, aside, (moveError) => {
        if (moveError) return callback(moveError)
        fs.stat(aside, (statError, stats) => {
          if (!statError && isSeen(stats)) {
            removedStale = true
            return fs.rm(aside, { recursive: true, force: true }, callback)
          }
          // replaced between the check and the move: another waiter's new lock. Back it goes at once.
          fs.rename(aside, lockPath, () => changedHands())
        })
      })
    })
  }) as typeof fs.rmdir
  return {
    fs: { ...fs, stat, rmdir },
    releasing: () => {
      ownRelease = true
    },
    tookOver: () => removedStale,
  }
}

/**
 * Lock folders a waiter moved aside and was killed before removing (older than STALE_MS): cleared by the
 * next holder that took a lock over, not on every write (one folder read fewer per write).
 */
async function removeAbandonedTakeovers(path: string): Promise<void> {
  const prefix = `${basename(path)}${TAKEOVER_INFIX}`
  const names = await readdir(dirname(path)).catch(() => [])
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix))
      .map(async (name) => {
        const aside = join(dirname(path), name)
        const stats = await lstat(aside).catch(() => null)
        if (stats && Date.now() - stats.mtimeMs >= STALE_MS) await rm(aside, { recursive: true, force: true })
      }),
  )
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
 * a mix. A symbolic link is written through: its target is replaced the same way, in the target's folder.
 * Call under {@link withFileLock}: temp files of earlier writers that were killed are removed first.
 * Throws {@link FileError}.
 */
export async function writeFileAtomic(
  path: string,
  content: string,
  beforeRename: () => void,
): Promise<void> {
  const target = await writeTarget(path)
  try {
    await replaceFile(target, content, beforeRename)
  } catch (error) {
    throw asFileError(error, target)
  }
}

async function replaceFile(path: string, content: string, beforeRename: () => void): Promise<void> {
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
