/**
 * Deterministic (seeded) generator of realistic agent transcripts for the storage benchmark: user turns,
 * assistants with tool calls (name + JSON arguments), tool results (some long), ~10% Chinese sentences.
 */
import type { MessageInput, ToolCall } from '../src/index.ts'

/** mulberry32: a small, fast, seedable PRNG. */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ENGLISH = (
  'database index query schema migration table column row transaction commit rollback cache latency ' +
  'throughput deploy deployment server client request response timeout retry backoff queue worker job ' +
  'scheduler cron pipeline build compile bundle package dependency version release changelog branch merge ' +
  'rebase conflict review approve test coverage fixture mock assertion snapshot regression benchmark profile ' +
  'memory leak allocation garbage collector thread process signal socket network proxy gateway router ' +
  'endpoint handler middleware authentication authorization token session cookie password secret vault ' +
  'encryption certificate domain record bucket storage upload download stream buffer chunk parser lexer ' +
  'grammar compiler runtime interpreter module import export function method class interface type generic ' +
  'refactor rename extract inline variable constant config environment container image registry cluster ' +
  'node replica shard partition leader follower consensus election heartbeat monitor alert dashboard metric ' +
  'logging trace span exporter collector sampling histogram percentile median average spike incident outage ' +
  'postmortem rollout canary feature flag experiment cohort analytics report invoice customer billing ' +
  'subscription payment refund webhook callback event listener emitter reducer store state component render ' +
  'layout stylesheet animation accessibility keyboard shortcut terminal shell script command argument option ' +
  'flag parser validator schema sanitizer escape unicode encoding decoding serializer compression archive ' +
  'backup restore snapshot checkpoint journal wal vacuum integrity corruption recovery replication sync ' +
  'offline conflict resolution merge strategy heuristic ranking relevance search tokenizer stemmer trigram ' +
  'embedding vector similarity cluster summary episode transcript prompt completion model temperature ' +
  'context window budget truncation compaction tool agent planner executor sandbox permission approval ' +
  'kubernetes docker postgres sqlite redis kafka nginx terraform ansible python typescript javascript rust ' +
  'golang react vue svelte webpack vite eslint biome prettier vitest jest playwright cypress github gitlab ' +
  'jenkins circleci grafana prometheus sentry datadog opentelemetry elasticsearch mongodb mysql dynamodb ' +
  'lambda serverless edge worker durable object websocket graphql grpc protobuf openapi swagger oauth jwt'
).split(' ')

/** A long tail of 8,000 pseudo-words (names, identifiers, jargon), so technical words are not all frequent. */
const TAIL: readonly string[] = (() => {
  const r = rng(7)
  const on = [
    'b',
    'c',
    'd',
    'f',
    'g',
    'k',
    'l',
    'm',
    'n',
    'p',
    'r',
    's',
    't',
    'v',
    'z',
    'st',
    'tr',
    'pl',
    'gr',
    'sh',
  ]
  const nu = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ea']
  const co = ['', 'n', 'r', 'l', 's', 'x', 'nd', 'rk', 'st', 'm']
  const seen = new Set<string>(ENGLISH)
  const out: string[] = []
  while (out.length < 8000) {
    let w = ''
    const syllables = 2 + Math.floor(r() * 2)
    for (let i = 0; i < syllables; i++)
      w +=
        on[Math.floor(r() * on.length)] +
        (nu[Math.floor(r() * nu.length)] as string) +
        (i === syllables - 1 ? co[Math.floor(r() * co.length)] : '')
    if (!seen.has(w)) {
      seen.add(w)
      out.push(w)
    }
  }
  return out
})()

const GLUE =
  'the a to of and in for with on that is this we it be from by as at should can will not but'.split(' ')

/** Chinese content words (2–4 characters); the query words are drawn from these. */
const CHINESE_WORDS = (
  '数据库 后端 前端 部署 配置 配置文件 性能 测试 测试用例 索引 查询 缓存 服务器 客户端 接口 日志 监控 告警 ' +
  '迁移 事务 回滚 提交 分支 合并 冲突 代码审查 发布 版本 依赖 打包 编译 调试 断点 内存 泄漏 线程 进程 ' +
  '网络 代理 网关 路由 认证 授权 令牌 会话 密码 加密 证书 域名 存储 上传 下载 压缩 备份 恢复 快照 同步 ' +
  '搜索 分词 排序 相关性 向量 嵌入 摘要 上下文 模型 提示词 工具 智能体 沙箱 权限 审批 容器 镜像 集群 ' +
  '节点 副本 分片 心跳 延迟 吞吐量 队列 任务 调度 定时任务 流水线 脚本 命令 参数 选项 终端 快捷键 ' +
  '用户 客户 订单 支付 退款 账单 报表 统计 实验 灰度发布 回调 事件 组件 渲染 样式 动画 页面 按钮 表单 ' +
  '校验 异常 错误 超时 重试 限流 熔断 降级 扩容 负载均衡 高可用 容灾 故障 复盘 文档 需求 方案 架构 ' +
  '重构 变量 函数 模块 类型 泛型 单元测试 集成测试 覆盖率 基准测试 火焰图'
).split(' ')

const CHINESE_GLUE = '我们 需要 把 先 再 已经 可以 应该 然后 这个 的 了 在 对 和 是 要 把 让 用'.split(' ')

/** Share of tool results that are long (200–4,000 characters): about 10% of all messages. */
const LONG_RESULT_SHARE = 0.3
/** Assistant answers run up to this many characters. */
const MAX_ANSWER_CHARS = 1500

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text
  const c = text.charCodeAt(max - 1)
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max)
}

const TOOL_NAMES = [
  'read_file',
  'write_file',
  'run_shell',
  'search_code',
  'web_search',
  'list_dir',
  'edit_file',
]

export interface GeneratedSession {
  id: string
  messages: MessageInput[]
}

export interface Dataset {
  sessions: GeneratedSession[]
  /** All messages in append order. */
  all: { sessionId: string; message: MessageInput }[]
}

export class Generator {
  private readonly r: () => number
  private callSeq = 0
  private clock = Date.UTC(2025, 0, 1)
  /** The words a long tool output being written repeats. */
  private topic: string[] = []

  constructor(seed: number) {
    this.r = rng(seed)
  }

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1))
  }
  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.r() * list.length)] as T
  }
  /** A word with a Zipf-like skew, so some words are frequent and many are rare. */
  private word(): string {
    // a long tool output repeats its own few words (a log's paths and errors, a file's identifiers)
    if (this.topic.length > 0 && this.r() < 0.4) return this.pick(this.topic)
    if (this.r() < 0.6) return TAIL[Math.floor(TAIL.length * this.r() ** 2)] as string
    const i = Math.floor(ENGLISH.length * this.r() ** 2.2)
    return ENGLISH[i] as string
  }

  sentence(min = 6, max = 18): string {
    const n = this.int(min, max)
    const words: string[] = []
    for (let i = 0; i < n; i++) words.push(this.r() < 0.3 ? this.pick(GLUE) : this.word())
    const s = words.join(' ')
    return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`
  }

  chineseSentence(): string {
    const n = this.int(4, 10)
    let s = ''
    for (let i = 0; i < n; i++) s += this.r() < 0.45 ? this.pick(CHINESE_GLUE) : this.pick(CHINESE_WORDS)
    return `${s}${this.r() < 0.8 ? '。' : '？'}`
  }

  private prose(minS: number, maxS: number): string {
    const n = this.int(minS, maxS)
    const out: string[] = []
    for (let i = 0; i < n; i++) out.push(this.sentence())
    return out.join(' ')
  }

  /** Text of a user or assistant turn; ~10% of such turns (≈10% of all messages with the mix) are Chinese. */
  private turnText(minS: number, maxS: number): string {
    const x = this.r()
    if (x < 0.17) {
      const n = this.int(1, 4)
      const out: string[] = []
      for (let i = 0; i < n; i++) out.push(this.chineseSentence())
      return out.join('')
    }
    if (x < 0.25) return `${this.prose(1, 2)} ${this.chineseSentence()}`
    return this.prose(minS, maxS)
  }

  private path(): string {
    const dirs = ['src', 'packages/core/src', 'apps/web/src', 'lib', 'test', 'scripts']
    return `${this.pick(dirs)}/${this.word()}/${this.word()}-${this.word()}.${this.pick(['ts', 'py', 'rs', 'json', 'md'])}`
  }

  private code(lines: number): string {
    const out: string[] = []
    for (let i = 0; i < lines; i++) {
      const indent = '  '.repeat(this.int(0, 3))
      const k = this.r()
      if (k < 0.3)
        out.push(
          `${indent}const ${this.word()}${this.int(1, 9)} = await ${this.word()}.${this.word()}(${this.word()})`,
        )
      else if (k < 0.5) out.push(`${indent}if (${this.word()} === null) return ${this.word()}`)
      else if (k < 0.65) out.push(`${indent}// ${this.sentence(4, 10)}`)
      else if (k < 0.8)
        out.push(
          `${indent}export function ${this.word()}${this.pick(['Handler', 'Store', 'Client', ''])}(${this.word()}: string): void {`,
        )
      else out.push(`${indent}}`)
    }
    return out.join('\n')
  }

  private toolCall(): ToolCall {
    const name = this.pick(TOOL_NAMES)
    let args: Record<string, unknown>
    switch (name) {
      case 'read_file':
      case 'list_dir':
        args = { path: this.path() }
        break
      case 'write_file':
        args = { path: this.path(), content: this.code(this.int(5, 40)) }
        break
      case 'edit_file':
        args = { path: this.path(), old: this.code(this.int(1, 4)), new: this.code(this.int(1, 6)) }
        break
      case 'run_shell':
        args = {
          command: `pnpm ${this.pick(['test', 'build', 'lint', 'bench'])} --filter ${this.word()}`,
          timeout: 120,
        }
        break
      default:
        args = { query: `${this.word()} ${this.word()} ${this.word()}`, limit: 10 }
    }
    return {
      id: `call_${(++this.callSeq).toString(36).padStart(8, '0')}`,
      type: 'function',
      function: { name, arguments: JSON.stringify(args) },
    }
  }

  /** A tool's output: short, or (LONG_RESULT_SHARE of results) 200–4,000 characters, as real tool output. */
  private toolResult(name: string): string {
    if (this.r() >= LONG_RESULT_SHARE) return this.toolOutput(name, false)
    const size = this.int(200, 4000)
    this.topic = Array.from({ length: 8 }, () => this.word())
    let out = this.toolOutput(name, true)
    while (out.length < size) out += `\n${this.toolOutput(name, true)}`
    this.topic = []
    return cut(out, size)
  }

  private toolOutput(name: string, long: boolean): string {
    switch (name) {
      case 'read_file':
      case 'write_file':
      case 'edit_file':
        return name === 'read_file' || long
          ? this.code(long ? this.int(20, 60) : this.int(10, 50))
          : `Wrote ${this.int(100, 9000)} bytes.`
      case 'run_shell': {
        const lines: string[] = []
        const n = long ? this.int(20, 60) : this.int(3, 15)
        for (let i = 0; i < n; i++)
          lines.push(
            `${this.pick(['✓', '✗', 'info', 'warn'])} ${this.path()} ${this.sentence(3, 9)} (${this.int(1, 900)} ms)`,
          )
        return lines.join('\n')
      }
      case 'list_dir':
        return Array.from({ length: long ? this.int(20, 60) : this.int(3, 25) }, () => this.path()).join('\n')
      default: {
        const n = long ? this.int(8, 20) : this.int(2, 6)
        return Array.from(
          { length: n },
          () =>
            `- ${this.sentence(4, 10)} https://example.com/${this.word()}/${this.word()}\n  ${this.sentence()}`,
        ).join('\n')
      }
    }
  }

  /** One session of exactly `count` messages: user → (assistant+tools → tool results)* → assistant answer … */
  session(id: string, count: number): GeneratedSession {
    const messages: MessageInput[] = []
    const push = (m: MessageInput) => {
      if (messages.length < count) {
        this.clock += this.int(200, 20_000)
        const text = typeof m.content === 'string' ? m.content : ''
        messages.push({ ...m, timestamp: this.clock, tokenCount: Math.ceil(text.length / 4) + 1 })
      }
    }
    while (messages.length < count) {
      push({ role: 'user', content: this.turnText(1, 4) })
      const steps = this.int(0, 3)
      for (let s = 0; s < steps && messages.length < count; s++) {
        const calls = Array.from({ length: this.r() < 0.8 ? 1 : 2 }, () => this.toolCall())
        push({ role: 'assistant', content: this.r() < 0.5 ? null : this.prose(1, 2), tool_calls: calls })
        for (const call of calls)
          push({
            role: 'tool',
            tool_call_id: call.id,
            name: call.function.name,
            content: this.toolResult(call.function.name),
          })
      }
      push({ role: 'assistant', content: cut(this.turnText(2, 16), MAX_ANSWER_CHARS) })
    }
    return { id, messages }
  }

  dataset(sessions: number, perSession: number, prefix: string): Dataset {
    const out: GeneratedSession[] = []
    for (let i = 0; i < sessions; i++)
      out.push(this.session(`${prefix}-${i.toString().padStart(5, '0')}`, perSession))
    return {
      sessions: out,
      all: out.flatMap((s) => s.messages.map((message) => ({ sessionId: s.id, message }))),
    }
  }

  /** The English vocabulary (for picking query words). */
  static englishWords(): readonly string[] {
    return ENGLISH
  }
}

/** Searchable text of a message as a plain string (content + tool-call names and arguments). */
function plainText(m: MessageInput): string {
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : []
  const content = typeof m.content === 'string' ? m.content : ''
  return [content, ...calls.map((c) => `${c.function.name} ${c.function.arguments}`)].join('\n')
}

/**
 * 150 English and 50 Chinese (2–4 character) query words that all occur in `messages`, chosen with a
 * seeded shuffle; English words are matched as whole lowercase words.
 */
export function queryWords(
  messages: readonly MessageInput[],
  seed: number,
): { english: string[]; chinese: string[] } {
  const r = rng(seed)
  const shuffle = <T>(list: T[]): T[] => {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1))
      ;[list[i], list[j]] = [list[j] as T, list[i] as T]
    }
    return list
  }
  const seenEnglish = new Set<string>()
  let chineseText = ''
  for (const m of messages) {
    const text = plainText(m)
    for (const w of text.toLowerCase().split(/[^a-z]+/)) if (w) seenEnglish.add(w)
    if (/[\u4e00-\u9fff]/.test(text)) chineseText += `${text}\n`
  }
  // 100 technical words and 50 long-tail words (names, identifiers) that occur in the data
  const english = [
    ...shuffle(ENGLISH.filter((w) => seenEnglish.has(w))).slice(0, 100),
    ...shuffle(TAIL.filter((w) => seenEnglish.has(w))).slice(0, 50),
  ]
  shuffle(english)
  const chinese = shuffle(CHINESE_WORDS.filter((w) => chineseText.includes(w))).slice(0, 50)
  if (english.length < 150 || chinese.length < 50) {
    throw new Error(
      `The data set is too small for the query set (${english.length} English, ${chinese.length} Chinese).`,
    )
  }
  return { english, chinese }
}
