/**
 * Which Host and Origin headers a server accepts (DNS-rebinding protection): a page of another site that
 * resolves its own name to this address sends its own Host and Origin, and is refused. Loopback names at
 * the server's port are always accepted; others only when configured.
 */
export function hostGuard(port: number, allowedHosts: readonly string[], allowedOrigins: readonly string[]) {
  // A configured name without a port means the server's own (behind a proxy, name it with the proxy's).
  const withPort = (host: string) => (/:\d+$/.test(host) ? host : `${host}:${port}`).toLowerCase()
  const hosts = new Set(['127.0.0.1', 'localhost', '[::1]', ...allowedHosts].map(withPort))
  const origins = new Set(
    [
      ...[...hosts].flatMap((host) => [`http://${host}`, `https://${host}`]),
      ...allowedOrigins.map((origin) => origin.replace(/\/+$/, '')),
    ].map((origin) => origin.toLowerCase()),
  )
  return {
    host: (value: string | undefined) => value !== undefined && hosts.has(value.toLowerCase()),
    /** A request without Origin (not from a browser page) passes; a page's must be listed. */
    origin: (value: string | undefined) => value === undefined || origins.has(value.toLowerCase()),
  }
}

/**
 * Requests per minute per token: a bucket of `perMinute` requests that refills continuously. `take` says
 * whether one more request may run now.
 */
export class RateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string): boolean {
    const now = this.now()
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((now - bucket.at) * this.perMinute) / 60_000)
    bucket.at = now
    this.buckets.set(key, bucket)
    if (bucket.tokens < 1) return false
    bucket.tokens -= 1
    return true
  }
}
