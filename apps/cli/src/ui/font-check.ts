import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import type { Check } from '../memory-check.ts'

/** Browsers whose presence on PATH says `engram ui` may be opened on this machine. */
const BROWSERS = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'firefox',
  'firefox-esr',
  'microsoft-edge',
]

/** The page listens on 127.0.0.1 only, so it is read here: when there is a display or a browser on PATH. */
function browserHere(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return true
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean)
  return dirs.some((dir) => BROWSERS.some((name) => existsSync(join(dir, name))))
}

/**
 * A warning for `engram doctor` when the page would show Chinese, Japanese and Korean text as empty boxes:
 * on Linux, with a browser here, fontconfig (fc-list) knows no font with Chinese glyphs. Null when all is
 * well or nothing can be told (another system, no fontconfig, no browser here).
 */
export function cjkFontCheck(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): Check | null {
  if (platform !== 'linux' || !browserHere(env)) return null
  const listed = spawnSync('fc-list', [':lang=zh', 'family'], { env, encoding: 'utf8', timeout: 30_000 })
  if (listed.error || listed.status !== 0 || listed.stdout.trim() !== '') return null
  return {
    name: 'fonts',
    ok: true,
    warn: true,
    detail:
      'no font with Chinese, Japanese or Korean glyphs: `engram ui` in a browser here shows such text as empty boxes',
    fix: 'install one, e.g. `apt-get install fonts-noto-cjk` (or fonts-wqy-zenhei) on Debian and Ubuntu',
  }
}
