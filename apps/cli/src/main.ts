import { Command, CommanderError } from 'commander'
import pc from 'picocolors'
import { registerChat } from './commands/chat.ts'
import { registerDemo } from './commands/demo.ts'
import { registerDoctor } from './commands/doctor.ts'
import { registerEval } from './commands/eval.ts'
import { registerInit } from './commands/init.ts'
import { registerSessions } from './commands/list.ts'
import { registerPrune, registerReindex } from './commands/maintenance.ts'
import { registerMcp } from './commands/mcp.ts'
import { registerMemory } from './commands/memory.ts'
import { registerMigrate } from './commands/migrate.ts'
import { registerSearch } from './commands/search.ts'
import { registerShow } from './commands/show.ts'
import { registerExport, registerImport } from './commands/transfer.ts'
import { registerUi } from './commands/ui.ts'
import { registerUsage } from './commands/usage.ts'
import { AlreadyReported, errorCode, errorLine, exitCodeOf } from './errors.ts'
import { cliCommand } from './invocation.ts'
import { colorEnabled, type Io } from './output.ts'

const COMMANDS = [
  registerChat,
  registerDemo,
  registerSessions,
  registerShow,
  registerSearch,
  registerUsage,
  registerMemory,
  registerMcp,
  registerExport,
  registerImport,
  registerPrune,
  registerReindex,
  registerMigrate,
  registerDoctor,
  registerEval,
  registerInit,
  registerUi,
]

const HELP_AFTER = `
Examples:
  engram demo                                  a walkthrough with the offline model (no API key needed)
  engram chat                                  talk to the agent; every message is saved
  engram chat --resume latest                  continue the newest session
  engram sessions --source telegram            the sessions of one source
  engram search "部署 SSL"                       search everything said before
  engram import --from-hermes ~/.hermes/state.db
  engram migrate --from ./data/engram.db --db postgres://user:pass@host/db   copy a store to PostgreSQL
  engram doctor                                check the config, database, memory files and model

Environment:
  OPENAI_API_KEY, OPENAI_BASE_URL              an OpenAI-compatible endpoint (without a key: the offline model)
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL        Anthropic instead
  HERMES_MODEL                                 the main model id
  ENGRAM_DB_URL, ENGRAM_DB_AUTH_TOKEN          the database (a path, a libsql:// or postgres:// url) and its token
  ENGRAM_USER                                  whose sessions and memory these are (default: the OS account name)
  NO_COLOR                                     no colours; ENGRAM_DEBUG=1 prints stacks of unexpected errors

The full reference: docs/cli.md.`

function buildProgram(io: Io): Command {
  const program = new Command('engram')
    .description('Engram: an agent with durable, searchable memory (the Hermes memory architecture)')
    .version('0.1.0')
    .option(
      '--db <path|url>',
      'the database: a file path, a libsql:// or postgres:// url (default your data folder: $XDG_DATA_HOME/engram/engram.db or ~/.local/share/engram/engram.db; or ENGRAM_DB_URL)',
    )
    .option('--config <file>', 'a config file (default ./engram.toml or ./engram.json)')
    .option('--json', 'print one JSON document on stdout (stable, see the README)')
    .showHelpAfterError(false)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: () => undefined,
    })
    .exitOverride()
    .addHelpText('after', HELP_AFTER)
  for (const register of COMMANDS) register(program, io)
  for (const command of program.commands) command.exitOverride().configureOutput(program.configureOutput())
  return program
}

function report(error: unknown, io: Io, json: boolean): number {
  const code = exitCodeOf(error)
  if (error instanceof AlreadyReported) return code
  const line = errorLine(error).replace(/^error: /, '')
  const hint =
    code === 2 && error instanceof CommanderError
      ? `. Run \`${cliCommand(io)} --help\` for the commands and options.`
      : ''
  const { red } = pc.createColors(colorEnabled(io.stderr, io.env))
  io.stderr.write(`${red(`engram: ${line}${hint}`)}\n`)
  if (json)
    io.stdout.write(`${JSON.stringify({ error: { code: errorCode(error), message: line } }, null, 2)}\n`)
  if (io.env.ENGRAM_DEBUG && error instanceof Error) io.stderr.write(`${error.stack}\n`)
  return code
}

/** Runs the CLI on `argv` (without node and the script) and returns the exit code: 0 ok, 1 failed, 2 usage. */
export async function main(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io)
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    if (
      error instanceof CommanderError &&
      ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)
    ) {
      return 0
    }
    return report(error, io, argv.includes('--json'))
  }
}
