import { readdirSync, readlinkSync, realpathSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'

const FD_DIR = '/proc/self/fd'

/** The path the system shows for an open file: its folder's links resolved, when the folder exists. */
function realFile(path: string): string {
  const absolute = resolve(path)
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute))
  } catch {
    return absolute
  }
}

/**
 * This process's open file descriptors on a database file and its -wal, -shm and -journal files, where the
 * system shows them (Linux's /proc); null elsewhere. One directory read and one readlink per descriptor.
 */
export function handlesOn(path: string): Set<string> | null {
  const file = realFile(path)
  const family = new Set([file, `${file}-wal`, `${file}-shm`, `${file}-journal`])
  let fds: string[]
  try {
    fds = readdirSync(FD_DIR)
  } catch {
    return null
  }
  const open = new Set<string>()
  for (const fd of fds) {
    try {
      const target = readlinkSync(`${FD_DIR}/${fd}`)
      if (family.has(target)) open.add(`${fd}:${target}`)
    } catch {
      // Closed between the read of the folder and this one.
    }
  }
  return open
}
