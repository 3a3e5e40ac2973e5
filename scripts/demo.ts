// The project's main job until the agent app exists: open the default store, write a conversation,
// close it as if the process ended, open it again, restore the history and search it.
import { DEFAULT_DATABASE_PATH, openStore } from '@engram/core'

const url = process.env.ENGRAM_DB_PATH ?? DEFAULT_DATABASE_PATH
const log = (line: string) => process.stdout.write(`${line}\n`)

const store = await openStore({ url })
log(`opened ${url} with the ${store.driverName} driver`)
const session = await store.createSession({
  source: 'cli',
  model: process.env.HERMES_MODEL ?? 'offline-demo',
})
const turns = [
  { role: 'user' as const, content: 'We chose FastAPI 做后端 and SQLite in WAL mode for the session store.' },
  {
    role: 'assistant' as const,
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function' as const,
        function: { name: 'read_file', arguments: '{"path":"db/migrations.sql"}' },
      },
    ],
  },
  {
    role: 'tool' as const,
    tool_call_id: 'call_1',
    name: 'read_file',
    content: 'CREATE TABLE sessions (...)',
  },
  {
    role: 'assistant' as const,
    content: 'The migration is ready; deploying the backend next. 部署完成后通知你。',
  },
]
for (const turn of turns) {
  const stored = await store.appendMessage(session.id, turn)
  log(`wrote message #${stored.id} (${stored.role}), committed`)
}
await store.close()
log('closed the store (as a crash or Ctrl-C would)')

const reopened = await openStore({ url })
const history = await reopened.getMessages(session.id)
log(
  `restored ${history.length} messages of session ${session.id} in order: ${history.map((m) => m.role).join(' → ')}`,
)
for (const query of ['后端', 'deployed', 'migrations.sql', '部署']) {
  const hits = await reopened.search(query, { sessionId: session.id, limit: 3 })
  log(`search ${JSON.stringify(query)}: ${hits.length} hit(s)${hits[0] ? ` — ${hits[0].snippet}` : ''}`)
}
const sessions = await reopened.listSessions({ limit: 1000 })
log(`the store now holds ${sessions.length} session(s)`)
await reopened.close()
