import { ENVIRONMENT, PREFERENCE } from '../prompts/fact-kinds.ts'

/** Temporary debugging details: errors, stack traces, failing runs. */
const DEBUGGING =
  /\b(?:error|exception|stack ?trace|traceback|debug(?:ging)?|bug|failed|failing|crash(?:ed)?|segfault)\b|报错|错误|调试|崩溃/i

/** The Hermes baselines: environment and configuration facts 8, user preferences 7, debugging details 3. */
export const IMPORTANCE = { environment: 8, preference: 7, neutral: 5, debugging: 3 } as const

const ESTIMATE = /\bimportance(?:\s*[:=])?\s*(\d{1,2})/i

/**
 * The importance (0–10) of an episode from its summary: the highest baseline among the kinds of fact it
 * holds (environment 8, preference 7; debugging alone 3; anything else 5), averaged with the summariser's
 * own estimate when the summary states one (`Importance: 6/10`). Linear in the summary's length.
 */
export function importanceOf(summary: string): number {
  let baseline: number = IMPORTANCE.neutral
  if (ENVIRONMENT.test(summary)) baseline = IMPORTANCE.environment
  else if (PREFERENCE.test(summary)) baseline = IMPORTANCE.preference
  else if (DEBUGGING.test(summary)) baseline = IMPORTANCE.debugging
  const estimate = ESTIMATE.exec(summary)
  if (!estimate) return baseline
  const value = Math.min(10, Number(estimate[1]))
  return Math.round((baseline + value) / 2)
}
