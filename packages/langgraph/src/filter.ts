import { EngramError } from '@engram/core'

/** The comparison operators a search `filter` takes on a field, as LangGraph's stores read them. */
const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin'] as const
type Operator = (typeof OPERATORS)[number]

const isOperators = (condition: unknown): condition is Partial<Record<Operator, unknown>> =>
  typeof condition === 'object' &&
  condition !== null &&
  !Array.isArray(condition) &&
  Object.keys(condition).length > 0 &&
  Object.keys(condition).every((key) => key.startsWith('$'))

/** Two JSON values are equal: same primitive, or the same structure (key order ignored). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return (
    keysA.length === keysB.length &&
    keysA.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
  )
}

/** Orders two values of one kind (numbers, strings); undefined when they cannot be compared. */
function order(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  return undefined
}

function test(operator: string, field: unknown, operand: unknown): boolean {
  const cmp = () => order(field, operand)
  switch (operator as Operator) {
    case '$eq':
      return same(field, operand)
    case '$ne':
      return !same(field, operand)
    case '$gt':
      return (cmp() ?? Number.NaN) > 0
    case '$gte':
      return (cmp() ?? Number.NaN) >= 0
    case '$lt':
      return (cmp() ?? Number.NaN) < 0
    case '$lte':
      return (cmp() ?? Number.NaN) <= 0
    case '$in':
      return Array.isArray(operand) && operand.some((value) => same(field, value))
    case '$nin':
      return Array.isArray(operand) && !operand.some((value) => same(field, value))
    default:
      throw new EngramError(
        'INVALID_ARGUMENT',
        `Searching the store: the filter operator ${operator} is unknown. Use one of ${OPERATORS.join(', ')}, or a plain value for equality.`,
      )
  }
}

/** The value of a field: a top-level key, or a dotted path (`author.name`). */
function fieldOf(value: Record<string, unknown>, path: string): unknown {
  if (path in value) return value[path]
  let at: unknown = value
  for (const part of path.split('.')) {
    if (typeof at !== 'object' || at === null) return undefined
    at = (at as Record<string, unknown>)[part]
  }
  return at
}

/**
 * Whether an item's value passes a search filter: each key a field (top-level or dotted), each condition a
 * value the field equals or an object of operators ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin) that all
 * hold. Ordering operators compare numbers with numbers and strings with strings; anything else fails them.
 */
export function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([path, condition]) => {
    const field = fieldOf(value, path)
    if (!isOperators(condition)) return same(field, condition)
    return Object.entries(condition).every(([operator, operand]) => test(operator, field, operand))
  })
}
