// A module resolution hook for running from source: `@engram/*` packages resolve to their TypeScript
// sources through the `engram-source` export condition (the same one the tests and tsx scripts use).
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, 'engram-source'] })
}
