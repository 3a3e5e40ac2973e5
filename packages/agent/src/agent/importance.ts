/** Statements of a durable preference or habit, in English or Chinese. */
export const PREFERENCE =
  /\b(?:i (?:prefer|like|love|hate|always|never|usually|want)|my favou?rite|please always|please never|don'?t ever)\b|我(?:喜欢|偏好|习惯|讨厌|总是|从不|一般)|不要用|请总是/i

/** Statements about the environment or configuration (ports, versions, paths, hosts, tools in use). */
export const ENVIRONMENT =
  /\b(?:port|host|url|path|version|config(?:uration)?|environment|database|db|server|deploy(?:ed|ment)?|install(?:ed)?|docker|postgres(?:ql)?|mysql|redis|node|python|we use|runs on)\b|端口|配置|环境|数据库|服务器|部署|版本|路径|我们用/i

/** Temporary debugging details: errors, stack traces, failing runs. */
const DEBUGGING =
  /\b(?:error|exception|stack ?trace|traceback|debug(?:ging)?|bug|failed|failing|crash(?:ed)?|segfault)\b|报错|错误|调试|崩溃/i

/** The articles' baselines: environment and configuration facts 8, user preferences 7, debugging details 3. */
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
