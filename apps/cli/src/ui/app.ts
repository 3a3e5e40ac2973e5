import {
  createMemoryTool,
  createSessionSearchTool,
  type EngramConfig,
  type MemoryFiles,
  type MemoryOperation,
  MemoryRefusal,
  type MemoryTarget,
  specOf,
} from '@engram/agent'
import type { Store } from '@engram/core'
import { Hono } from 'hono'
import { html } from 'hono/html'
import { requireAccess } from './access.ts'
import { contextPage } from './context-page.ts'
import { page } from './html.ts'
import { memoryPage } from './memory-page.ts'
import { searchPage } from './search-page.ts'
import { sessionPage } from './session-page.ts'
import { sessionsPage } from './sessions-page.ts'
import { usagePage } from './usage-page.ts'

/** What the page reads: the open store, the memory files and the configuration. */
export interface UiOptions {
  store: Store
  memory: MemoryFiles
  config: EngramConfig
  /** The access token every request must carry. */
  token: string
  /** Memory files may be changed from the page (off by default). */
  allowEdit: boolean
  /** The `--db …` arguments of the resume command the page offers. */
  dbArgs: string
  /** The peer address of a request (the node server's socket), for the loopback check. */
  remoteAddress: Parameters<typeof requireAccess>[1]
}

const notFound = (what: string) =>
  page('Not found', '', html`<p>${what}</p><p><a href="/">All sessions</a></p>`)

function operationOf(
  form: Record<string, string | File>,
): { target: MemoryTarget; operation: MemoryOperation } | null {
  const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : undefined)
  const target = field('target')
  if (target !== 'memory' && target !== 'user') return null
  const content = field('content')
  const old = field('old_text')
  const action = field('action')
  if (action === 'add' && content) return { target, operation: { action, content } }
  if (action === 'replace' && content && old) return { target, operation: { action, old_text: old, content } }
  if (action === 'remove' && old) return { target, operation: { action, old_text: old } }
  return null
}

/**
 * The local web page of `engram ui`: server-rendered HTML over the Store's paged reads, behind the access
 * check; read-only unless `allowEdit`.
 */
export function createUiApp(options: UiOptions): Hono {
  const { store, memory, config } = options
  // The schemas the agent sends with every request: its two built-in tools over this store and these files.
  const tools = [createMemoryTool(memory), createSessionSearchTool(store)].map(specOf)
  const app = new Hono()
  app.use('*', requireAccess(options.token, options.remoteAddress))
  app.use('*', async (c, next) => {
    await next()
    c.header('Cache-Control', 'no-store')
    c.header('X-Content-Type-Options', 'nosniff')
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on form posts.
    c.header('Referrer-Policy', 'same-origin')
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'",
    )
  })
  app.get('/', async (c) => c.html(await sessionsPage(store, c.req.query())))
  app.get('/search', async (c) => c.html(await searchPage(store, c.req.query())))
  app.get('/sessions/:id', async (c) => {
    const body = await sessionPage({ store, dbArgs: options.dbArgs }, c.req.param('id'), c.req.query())
    return body ? c.html(body) : c.html(notFound('There is no session with this id.'), 404)
  })
  app.get('/sessions/:id/context', async (c) => {
    const body = await contextPage(store, config, tools, c.req.param('id'))
    return body ? c.html(body) : c.html(notFound('There is no session with this id.'), 404)
  })
  app.get('/memory', async (c) =>
    c.html(await memoryPage(memory, { allowEdit: options.allowEdit, ...c.req.query() })),
  )
  app.post('/memory', async (c) => {
    if (!options.allowEdit) {
      return c.text('Editing is off: restart with `engram ui --allow-edit` to change the memory files.', 403)
    }
    const change = operationOf(await c.req.parseBody())
    if (!change)
      return c.html(
        await memoryPage(memory, { allowEdit: true, error: 'The form was incomplete: nothing was changed.' }),
        400,
      )
    try {
      const result = await memory.apply(change.target, [change.operation])
      return c.html(await memoryPage(memory, { allowEdit: true, notice: result.summary }))
    } catch (error) {
      if (!(error instanceof MemoryRefusal)) throw error
      return c.html(await memoryPage(memory, { allowEdit: true, error: error.message }), 422)
    }
  })
  app.get('/usage', async (c) => c.html(await usagePage(store, c.req.query())))
  app.notFound((c) => c.html(notFound('There is no such page.'), 404))
  return app
}
