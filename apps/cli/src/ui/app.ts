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
import { EngramError, type Session, type Store } from '@engram/core'
import { type Context, Hono } from 'hono'
import { contextStorage } from 'hono/context-storage'
import { html } from 'hono/html'
import { type AccessOptions, requireAccess } from './access.ts'
import { contextPage } from './context-page.ts'
import { type Html, page, sessionHref, type UiEnv } from './html.ts'
import { memoryPage } from './memory-page.ts'
import { searchPage } from './search-page.ts'
import { fullText, sessionPage } from './session-page.ts'
import { sessionsPage } from './sessions-page.ts'
import { usagePage } from './usage-page.ts'

/** What the page reads: the open store, the memory files and the configuration, and who may read it. */
export interface UiOptions extends AccessOptions {
  store: Store
  memory: MemoryFiles
  config: EngramConfig
  /** Memory files may be changed from the page (off by default). */
  allowEdit: boolean
  /** The database's path or url, for the command that resumes a session (shown masked when it has a secret). */
  database: string
}

const notFound = (what: string) =>
  page('Not found', '', html`<p>${what}</p><p><a href="./">All sessions</a></p>`)

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

/** The most sessions an ambiguous prefix lists. */
const MATCHES = 20

/** Sessions whose id starts with `prefix`, as a page of links to choose from. */
function choices(prefix: string, matches: Session[]): Html {
  return page(
    'Several sessions match',
    './',
    html`<p>${matches.length >= MATCHES ? `${MATCHES} or more` : matches.length} sessions start with <code>${prefix}</code>; pick one, or give more of its id:</p>
    <ul>${matches.map((s) => html`<li><a href="${sessionHref(s.id)}"><code>${s.id}</code></a> <span class="muted">${s.source}${s.title ? ` · ${s.title.slice(0, 80)}` : ''}</span></li>`)}</ul>`,
  )
}

/**
 * The local web page of `engram ui`: server-rendered HTML over the Store's paged reads, under a base path,
 * behind the access check; read-only unless `allowEdit`.
 */
export function createUiApp(options: UiOptions): Hono<UiEnv> {
  const { store, memory, config, basePath } = options
  // The schemas the agent sends with every request: its two built-in tools over this store and these files.
  const tools = [createMemoryTool(memory), createSessionSearchTool(store)].map(specOf)
  const root = new Hono<UiEnv>({ strict: false })
  root.use('*', requireAccess(options))
  root.use('*', contextStorage())
  root.use('*', async (c, next) => {
    c.set('basePath', basePath)
    await next()
    c.header('Cache-Control', 'no-store')
    c.header('X-Content-Type-Options', 'nosniff')
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on form posts.
    c.header('Referrer-Policy', 'same-origin')
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'self'; frame-ancestors 'none'",
    )
  })

  /**
   * The session an address names: a full id, or a unique prefix of one (the page shows 8 characters), which
   * redirects to the full id's address; an ambiguous prefix lists the matches.
   */
  const withSession =
    (
      sub: (c: Context<UiEnv>) => string,
      render: (c: Context<UiEnv>, session: Session) => Promise<Response>,
    ) =>
    async (c: Context<UiEnv>) => {
      const id = c.req.param('id') ?? c.req.query('id') ?? ''
      const session = await store.getSession(id)
      if (session) return render(c, session)
      const { items } = await store.listSessionsPage({ idPrefix: id, limit: MATCHES })
      const [only] = items
      if (items.length === 1 && only) {
        const { id: _, ...query } = c.req.query()
        return c.redirect(`${basePath}${sessionHref(only.id, sub(c), query)}`, 302)
      }
      if (items.length > 1) return c.html(choices(id, items), 300)
      return c.html(notFound('There is no session with this id or prefix.'), 404)
    }
  const transcript = withSession(
    () => '',
    async (c, session) =>
      c.html(await sessionPage({ store, database: options.database }, session, c.req.query())),
  )
  const context = withSession(
    () => '/context',
    async (c, session) => c.html(await contextPage(store, config, tools, session)),
  )
  const message = withSession(
    (c) => `/messages/${c.req.param('message')}`,
    async (c, session) => {
      const messageId = Number(c.req.param('message'))
      const body = Number.isSafeInteger(messageId)
        ? await fullText(store, session, messageId, c.req.query('part'))
        : null
      return body === null
        ? c.html(notFound('This session has no message with this number.'), 404)
        : c.text(body, 200, { 'Content-Type': 'text/plain; charset=utf-8' })
    },
  )

  const app = new Hono<UiEnv>()
  app.get('/', async (c) => c.html(await sessionsPage(store, c.req.query())))
  app.get('/search', async (c) => c.html(await searchPage(store, c.req.query())))
  app.get('/sessions/:id', transcript)
  app.get('/sessions/:id/context', context)
  app.get('/sessions/:id/messages/:message', message)
  // Ids of dots alone travel in the query (see sessionHref).
  app.get('/session', transcript)
  app.get('/session/context', context)
  app.get('/session/messages/:message', message)
  // Only the server's own setting decides whether the forms show: nothing in the address does.
  app.get('/memory', async (c) => c.html(await memoryPage(memory, { allowEdit: options.allowEdit })))
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
  // A bad address (a malformed cursor or id, a date that is not one) is the reader's to fix: a 400 page
  // saying what was wrong, nothing on stderr. Anything else is a 500 with one line on stderr, never a stack.
  app.onError((error, c) => {
    if (error instanceof EngramError && error.code === 'INVALID_ARGUMENT') {
      return c.html(
        page('Bad request', '', html`<p>${error.message}</p><p><a href="./">All sessions</a></p>`),
        400,
      )
    }
    process.stderr.write(`engram ui: ${error.message}\n`)
    return c.html(page('Something went wrong', '', html`<p>${error.message}</p>`), 500)
  })
  root.route(basePath.slice(0, -1), app)
  root.notFound((c) => c.html(notFound('There is no such page.'), 404))
  return root
}
