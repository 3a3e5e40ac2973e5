/**
 * Kinds of durable fact recognised in text, shared by the episode importance, the offline model's memory
 * review and its summaries. Each is one regular expression without nested quantifiers (linear).
 */

/** Statements of a durable preference or habit, in English or Chinese. */
export const PREFERENCE =
  /\b(?:i (?:prefer|like|love|hate|always|never|usually|want)|my favou?rite|please always|please never|don'?t ever)\b|我(?:喜欢|偏好|习惯|讨厌|总是|从不|一般)|不要用|请总是/i

/** Statements about the environment or configuration (ports, versions, paths, hosts, tools in use). */
export const ENVIRONMENT =
  /\b(?:port|host|url|path|version|config(?:uration)?|environment|database|db|server|deploy(?:ed|ment)?|install(?:ed)?|docker|postgres(?:ql)?|mysql|redis|node|python|we use|runs on)\b|端口|配置|环境|数据库|服务器|部署|版本|路径|我们用/i
