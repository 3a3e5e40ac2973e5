import pg from 'pg'

/** How long a connection may sit idle before it is closed (as pg-pool's default idleTimeoutMillis). */
const IDLE_CLOSE_MS = 10_000

interface Waiter {
  resolve: (client: pg.Client) => void
  reject: (error: unknown) => void
}

/**
 * The pg driver's pool: at most `max` node-postgres clients, an idle one taken and given back in a few
 * array operations. Why not pg-pool: its checkout and release (event emits, a tick per checkout, a timer
 * per release) cost ~50 µs a query on these machines, a third of a small search's round trip, which the
 * raw-client floors of `pnpm bench:pg` do not pay.
 *
 * A client whose connection fails or ends is dropped, at once if it is idle and at its release if it is in
 * use (its query fails, and the caller gives it back as broken); a waiter is then served by a new
 * connection. Idle clients are closed after IDLE_CLOSE_MS, so a process that never closes its store still
 * exits, as it would with pg-pool.
 */
export class PgConnections {
  private readonly idle: { client: pg.Client; since: number }[] = []
  private readonly waiting: Waiter[] = []
  private readonly dead = new WeakSet<pg.Client>()
  private open = 0
  private ending = false
  private sweeper: ReturnType<typeof setInterval> | null = null

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly max: number,
  ) {}

  /** A client for the caller alone until it calls release(). */
  acquire(): Promise<pg.Client> {
    if (this.ending) return Promise.reject(new Error('Cannot use a pool after calling end on the pool'))
    const idle = this.idle.pop()
    if (idle !== undefined) return Promise.resolve(idle.client)
    if (this.open < this.max) return this.connect()
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }))
  }

  /** Gives a client back; `broken` (its connection failed, or its state is unknown) closes it instead. */
  release(client: pg.Client, broken = false): void {
    if (broken || this.ending || this.dead.has(client)) {
      this.discard(client)
      return
    }
    const waiter = this.waiting.shift()
    if (waiter !== undefined) {
      waiter.resolve(client)
      return
    }
    this.idle.push({ client, since: Date.now() })
    this.sweeper ??= setInterval(() => this.sweep(), IDLE_CLOSE_MS / 2)
    this.sweeper.unref?.()
  }

  /** Closes the idle clients and refuses new work; clients in use are closed as they come back. */
  async end(): Promise<void> {
    this.ending = true
    this.stopSweeping()
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error('The pool was closed'))
    const idle = this.idle.splice(0)
    this.open -= idle.length
    await Promise.all(idle.map(({ client }) => client.end().catch(() => undefined)))
  }

  private async connect(): Promise<pg.Client> {
    this.open++
    const client = new pg.Client(this.config)
    // An 'error' without a listener would crash the process: a dropped connection is expected here.
    client.on('error', () => this.lost(client))
    client.on('end', () => this.lost(client))
    try {
      await client.connect()
      return client
    } catch (error) {
      this.open--
      client.end().catch(() => undefined)
      throw error
    }
  }

  private lost(client: pg.Client): void {
    this.dead.add(client)
    const at = this.idle.findIndex((entry) => entry.client === client)
    if (at >= 0) {
      this.idle.splice(at, 1)
      this.close(client)
    }
  }

  /** Closes a client this pool counts (without waiting for its socket to end). */
  private close(client: pg.Client): void {
    this.open--
    client.end().catch(() => undefined)
  }

  private discard(client: pg.Client): void {
    this.close(client)
    const waiter = this.ending ? undefined : this.waiting.shift()
    if (waiter !== undefined) this.connect().then(waiter.resolve, waiter.reject)
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_CLOSE_MS
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const entry = this.idle[i]
      if (entry !== undefined && entry.since < cutoff) {
        this.idle.splice(i, 1)
        this.close(entry.client)
      }
    }
    if (this.idle.length === 0) this.stopSweeping()
  }

  private stopSweeping(): void {
    if (this.sweeper !== null) clearInterval(this.sweeper)
    this.sweeper = null
  }
}
