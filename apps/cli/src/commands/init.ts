import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import {
  DEFAULT_COMPRESSOR_CONFIG as C,
  DEFAULT_COMPACT_TRIGGER_RATIO,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_DATABASE_PATH,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MEMORY_CHAR_LIMIT,
  DEFAULT_MODEL_IDS,
  DEFAULT_NUDGE_INTERVAL_TASKS,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_USER_CHAR_LIMIT,
} from '@engram/agent'
import { EngramError } from '@engram/core'
import type { Command } from 'commander'
import { createContext } from '../context.ts'
import type { Io } from '../output.ts'

/** The commented config `engram init` writes: the Hermes sections and keys, set to the defaults. */
const CONFIG_TEMPLATE = `# Engram configuration. Every key is optional; these are the defaults.
# The environment overrides this file: OPENAI_API_KEY, OPENAI_BASE_URL, HERMES_MODEL, ANTHROPIC_API_KEY,
# ENGRAM_DB_URL, ENGRAM_DB_AUTH_TOKEN. Keep API keys in the environment, not here.
# Check it with \`engram doctor\`.

[hermes.storage]
db_path = "${DEFAULT_DATABASE_PATH}"   # a file, or a Turso url: libsql://<db>-<org>.turso.io (token: ENGRAM_DB_AUTH_TOKEN)
journal_mode = "WAL"           # readers never block the writer; several processes can share the file
synchronous = "NORMAL"         # durable across application crashes in WAL mode; FULL is slower
busy_timeout = 1000            # ms SQLite waits for a lock before Engram's own retries start
fts_enabled = true             # full-text search is always on

[context_compressor]
trigger_ratio = ${C.triggerRatio}           # compress when the prompt reaches 75% of the usable window
head_protect_messages = ${C.headProtectMessages}      # messages after the system prompt kept verbatim
tail_protect_tokens = ${C.tailProtectTokens}    # recent tokens kept verbatim
tool_output_char_limit = ${C.toolOutputCharLimit}   # older tool outputs longer than this become one-line placeholders
# compress_model = "your-cheap-model-id"   # the summariser; defaults to the main model
repair_tool_pairs = ${C.repairToolPairs}       # never leave a tool call without its result (or the reverse)
summary_max_tokens = ${C.summaryMaxTokens}      # cap on each summary

[memory_files]
memory_md_char_limit = ${DEFAULT_MEMORY_CHAR_LIMIT}    # MEMORY.md, the agent's notes (about 800 tokens)
user_md_char_limit = ${DEFAULT_USER_CHAR_LIMIT}      # USER.md, the user profile (about 500 tokens)
compact_trigger_ratio = ${DEFAULT_COMPACT_TRIGGER_RATIO}    # above this share of the cap the agent consolidates

[nudge]
interval_tasks = ${DEFAULT_NUDGE_INTERVAL_TASKS}            # the agent reviews its work into MEMORY.md every this many tasks; 0 turns it off

[api]
# base_url = "https://api.openai.com/v1"   # any OpenAI-compatible endpoint (or OPENAI_BASE_URL)
timeout_seconds = ${DEFAULT_TIMEOUT_SECONDS}

[models.main]
# model_id = "${DEFAULT_MODEL_IDS.openai}"     # or HERMES_MODEL
max_tokens = ${DEFAULT_MAX_TOKENS}
context_window = ${DEFAULT_CONTEXT_WINDOW}

[memory]
# By default MEMORY.md and USER.md live beside the database (so --db moves them too).
# memory_md_path = "./data/MEMORY.md"
# user_md_path = "./data/USER.md"
`

/** `engram init [file]`: writes the commented config; refuses to overwrite one without --force. */
export function registerInit(program: Command, io: Io): void {
  program
    .command('init')
    .description('write a commented engram.toml with the defaults')
    .argument('[file]', 'where to write it', 'engram.toml')
    .option('--force', 'overwrite an existing file')
    .action(async (file: string, _options, command: Command) => {
      const ctx = createContext<{ force?: boolean }>(command, io)
      const path = resolve(io.cwd, file)
      if (existsSync(path) && statSync(path).isDirectory()) {
        throw new EngramError(
          'INVALID_ARGUMENT',
          `${path} is a folder. Name the file to write, e.g. \`engram init ${join(file, 'engram.toml')}\`.`,
        )
      }
      if (existsSync(path) && !ctx.options.force) {
        throw new EngramError(
          'INVALID_ARGUMENT',
          `${path} already exists. Edit it, or pass --force to replace it.`,
        )
      }
      try {
        // The folders of a new path are created, as \`engram migrate\` does for a database.
        mkdirSync(dirname(path), { recursive: true })
        writeFileSync(path, CONFIG_TEMPLATE)
      } catch (cause) {
        throw new EngramError(
          'INVALID_ARGUMENT',
          `Cannot write ${path} (${(cause as Error).message.split('\n')[0]}). Choose a path in a folder you can write to.`,
          { cause },
        )
      }
      if (ctx.out.json) return ctx.out.printJson({ written: path })
      ctx.out.line(`Wrote ${path}. Check it with \`engram doctor\`.`)
    })
}
