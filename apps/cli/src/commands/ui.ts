import { spawn } from 'node:child_process'
import { MemoryFiles } from '@engram/agent'
import { openStore } from '@engram/core'
import type { Command } from 'commander'
import { createContext, requireDatabase } from '../context.ts'
import { UsageError } from '../errors.ts'
import { unownedHint } from '../identity.ts'
import { cliCommand } from '../invocation.ts'
import type { Io } from '../output.ts'

/** Opens the URL in the desktop's browser, if there is one; failing to is not an error. */
function openBrowser(url: string): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  try {
    spawn(command, [url], { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref()
  } catch {
    // No browser launcher: the URL is printed anyway.
  }
}

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM). */
const stopRequested = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })

/** `engram ui [--port N] [--open] [--allow-edit]`: the local page over the configured database. */
export function registerUi(program: Command, io: Io): void {
  program
    .command('ui')
    .description(
      'a local web page of sessions, what the model sees, memory and cost (127.0.0.1, token in the URL)',
    )
    .option('--port <port>', 'the port (default: a free one)', '0')
    .option('--open', 'open the page in the browser')
    .option(
      '--allow-edit',
      'allow changing MEMORY.md and USER.md from the page (same caps, scan and locks as the tool)',
    )
    .action(async (_options, command: Command) => {
      const ctx = createContext<{ port: string; open?: boolean; allowEdit?: boolean }>(command, io)
      const port = Number(ctx.options.port)
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new UsageError(
          `--port must be a whole number from 0 to 65535 (got ${JSON.stringify(ctx.options.port)}).`,
        )
      }
      const config = ctx.config()
      const url = config.storage.url ?? ''
      // A page over nothing helps nobody: like the other read-only commands, it creates no database.
      requireDatabase(url, io.cwd)
      const store = await openStore(config.storage)
      const memory = new MemoryFiles(config.memoryFiles)
      // The web server (hono and the pages) loads only for this command.
      const { startUi } = await import('../ui/serve.ts')
      const ui = await startUi({
        store,
        memory,
        config,
        allowEdit: Boolean(ctx.options.allowEdit),
        database: url,
        port,
      }).catch(async (error: NodeJS.ErrnoException) => {
        await store.close()
        if (error.code === 'EADDRINUSE')
          throw new UsageError(`Port ${port} is in use: pick another with --port, or omit it for a free one.`)
        throw error
      })
      const { out } = ctx
      if (out.json) out.printJson({ url: ui.url, allowEdit: Boolean(ctx.options.allowEdit) })
      else {
        out.line(`Engram UI: ${ui.url}`)
        const hint = await unownedHint(store, ctx.user(), cliCommand(io)).catch(() => null)
        if (hint) out.note(hint)
        out.note(
          `${ctx.options.allowEdit ? 'Memory files can be edited from the page.' : 'Read-only (--allow-edit to change memory files).'} Only this machine can connect; the token in the address is the key. Ctrl-C stops it.`,
        )
      }
      if (ctx.options.open) openBrowser(ui.url)
      await stopRequested()
      await ui.close()
      await store.close()
    })
}
