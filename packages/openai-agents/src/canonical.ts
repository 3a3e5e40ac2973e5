import { createHash } from 'node:crypto'

/**
 * JSON with object keys sorted, so two values that hold the same data compare equal however their
 * keys were ordered (a streamed and a non-streamed run build the same item in different orders). Array-index
 * keys ("0", "17") come first in numeric order, as JavaScript lists any object's keys; the text is the
 * digest's input, so it stays as stored digests were computed.
 * Keys whose value is undefined are left out, as JSON.stringify does. Every own key counts, `__proto__`
 * included: the sorted copy has no prototype, so assigning `__proto__` defines a key instead of changing
 * the prototype (and dropping the key from the text). Linear in the value's size.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner
    const sorted: Record<string, unknown> = Object.create(null)
    for (const key of Object.keys(inner).sort()) sorted[key] = (inner as Record<string, unknown>)[key]
    return sorted
  })
}

export const digestOf = (value: unknown): string =>
  createHash('sha256').update(canonicalJson(value)).digest('hex')
