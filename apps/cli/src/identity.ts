import { existsSync } from 'node:fs'
import { homedir, userInfo } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import type { EngramConfig } from '@engram/agent'
import { countUnownedSessions, EngramError, type Store } from '@engram/core'
import { parseScope } from '@engram/mcp/config'

type Env = Readonly<Record<string, string | undefined>>

/** The environment variable naming whose sessions and memory these are. */
const USER_VARIABLE = 'ENGRAM_USER'

/**
 * The folder of one person's Engram data, the same from every working folder: `$XDG_DATA_HOME/engram`,
 * else `~/.local/share/engram` (`%LOCALAPPDATA%\engram` on Windows). A relative XDG_DATA_HOME is ignored,
 * as the XDG specification says.
 */
function dataHome(env: Env): string {
  const xdg = env.XDG_DATA_HOME?.trim()
  if (xdg && isAbsolute(xdg)) return join(xdg, 'engram')
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'engram')
  return join(env.HOME?.trim() || homedir(), '.local', 'share', 'engram')
}

/** The database every command uses when nothing names one. */
export const defaultDatabase = (env: Env) => join(dataHome(env), 'engram.db')

/** The OS account's name, or null where the system has none for this process (a bare container uid). */
function accountName(env: Env): string | null {
  try {
    return userInfo().username
  } catch {
    return env.USER?.trim() || env.LOGNAME?.trim() || null
  }
}

/**
 * Whose sessions and memory these are: `ENGRAM_USER`, else the config file's `user`, else the OS account
 * name. The one identity `engram chat`, `engram mcp`, `engram ui` and `engram mcp install` share, so the
 * sessions of one person's chat are the ones their MCP client searches.
 */
export function currentUser(env: Env, config: Pick<EngramConfig, 'user'>): string {
  const fromEnv = env[USER_VARIABLE]?.trim()
  const named = fromEnv || config.user || accountName(env)
  if (!named) {
    throw new EngramError(
      'INVALID_CONFIG',
      `There is no user name for this process (no OS account name). Set ${USER_VARIABLE}, or user = "<id>" in the config file.`,
    )
  }
  try {
    return parseScope(named, undefined).user
  } catch {
    const where = fromEnv ? USER_VARIABLE : config.user ? "the config file's user key" : 'the OS account name'
    throw new EngramError(
      'INVALID_CONFIG',
      `The user ${JSON.stringify(named)} (from ${where}) is not an id: use 1 to 128 letters, digits or ._@+- (starting with a letter or digit). Set ${USER_VARIABLE}, or user = "<id>" in the config file.`,
    )
  }
}

/**
 * What to tell a user whose store holds sessions without a user (they are not theirs until adopted), or
 * null when there are none. `command` is how to run the CLI here.
 */
export async function unownedHint(store: Store, user: string, command: string): Promise<string | null> {
  const unowned = await countUnownedSessions(store)
  if (unowned === 0) return null
  return `${unowned} session${unowned === 1 ? '' : 's'} in this database ha${unowned === 1 ? 's' : 've'} no user, so ${unowned === 1 ? 'it is' : 'they are'} not searched as ${JSON.stringify(user)}'s: list them with \`${command} sessions --unowned\`, make them ${JSON.stringify(user)}'s with \`${command} sessions adopt --user ${user}\`.`
}

/**
 * A database the default used to be (`./data/engram.db` of the working folder) that the default no longer
 * names, or null: it is not read unless named, so the user is told where it is.
 */
export function legacyDatabaseHint(url: string | undefined, env: Env, cwd: string): string | null {
  const legacy = resolve(cwd, 'data', 'engram.db')
  if (url !== defaultDatabase(env) || !existsSync(legacy)) return null
  return `The default database is now ${defaultDatabase(env)}; ${legacy} is not used unless named: pass --db ${legacy} (or set ENGRAM_DB_URL), or copy its sessions over with \`engram migrate --from ${legacy}\`.`
}
