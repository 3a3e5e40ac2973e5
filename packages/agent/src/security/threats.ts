/**
 * The threat scanner for text that reaches a system prompt through the memory files. Every pattern is
 * either a literal prefix followed by quantifiers over classes that cannot overlap what comes next, or a
 * per-line conjunction of such patterns, so a scan is linear in the text's length (no backtracking
 * blow-ups on hostile input).
 */

export type ThreatScan = { ok: true } | { ok: false; reason: string }

interface Rule {
  reason: string
  /** Every pattern must match the same line (a single pattern may also span lines). */
  all: RegExp[]
}

const rule = (reason: string, ...all: RegExp[]): Rule => ({ reason, all })

/** Not preceded by a token character, so `task-…` is not read as an `sk-…` key. */
const START = '(?<![A-Za-z0-9_-])'
const key = (pattern: string) => new RegExp(`${START}${pattern}`)

const INVISIBLE: Rule[] = [
  rule('invisible zero-width character', /[\u200b\u200e\u200f\u2060-\u2064\ufeff\u180e]/),
  // A joiner belongs between two parts of an emoji or two letters; anywhere else it hides text.
  rule(
    'invisible zero-width joiner',
    /(?<!\p{Extended_Pictographic}|\p{L}|\p{M}|\ufe0f)[\u200c\u200d]|[\u200c\u200d](?!\p{Extended_Pictographic}|\p{L}|\p{M})/u,
  ),
  rule('bidirectional override character', /[\u202a-\u202e\u2066-\u2069\u061c]/),
  rule('invisible Unicode tag character', /[\u{e0000}-\u{e007f}]/u),
]

const NET =
  /\b(?:curl|wget|fetch|nc|ncat|netcat|scp|rsync|ftp|sftp|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|requests\.(?:get|post)|axios|http\.request)\b/i
const SEND =
  /\b(?:send|post|upload|exfiltrate|leak|forward|transmit|email|paste)\b|发送|上传|转发|传到|发到|贴到/i
const READ =
  /\b(?:cat|less|more|head|tail|type|base64|xxd|strings|tar|zip|cp|scp|read|print|dump|open|show|reveal|display)\b|读取|查看|打印|显示|输出|打开/i
const SECRET_VAR =
  /\$\{?[A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)\b|\bprocess\.env\b|\bos\.environ\b|\b(?:printenv|env)\s*\||\$\(\s*(?:printenv|env)\s*\)/i
const SECRET_FILE =
  /~\/\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws\/credentials|\.config\/gcloud|application_default_credentials|\.kube\/config|\.netrc\b|\.npmrc\b|\.pypirc\b|\.pgpass\b|\.docker\/config\.json|\/etc\/shadow|\.git-credentials/i
const DOTENV = /(?:^|[\s'"`/])\.env(?:\.[a-z]+)?(?=$|[\s'"`;|&)])/
const EXFIL_HOST =
  /\b(?:pastebin\.com|paste\.ee|hastebin|ghostbin|termbin\.com|0x0\.st|transfer\.sh|ix\.io|webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app)|burpcollaborator|interact\.sh|oast\.(?:fun|me|pro|live|site|online))/i

const INJECTION: Rule[] = [
  rule(
    'prompt injection ("ignore previous instructions")',
    /\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:(?:all|any|every|the|your|my|of|these|those)\s+)*(?:previous|prior|above|earlier|preceding|former|original|system|safety|existing)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|context|constraints|guardrails)/i,
  ),
  rule(
    'prompt injection ("ignore previous instructions")',
    /(?:忽略|无视|忘记|忘掉|不要理会|抛开|绕过)(?:你)?(?:之前|以前|先前|前面|上面|以上|上述|所有|全部|原来|原有|系统)(?:的)?(?:所有|全部|一切)?(?:的)?(?:指令|指示|说明|规则|提示|提示词|设定|限制|约束|要求)/,
  ),
  rule(
    'role hijack ("you are now …")',
    /\byou\s+are\s+(?:now|no\s+longer)\s+(?:an?\s+|the\s+|in\s+)?(?:(?:new|different|unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|free)\b|dan\b|developer\s+mode|bound\b|restricted\b|an?\s+ai\s+without|assistant\s+without)/i,
  ),
  rule(
    'role hijack (role-play, "from now on you …")',
    /\bfrom\s+now\s+on,?\s+(?:you|the\s+assistant)\s+(?:are|will|must|should|shall)\b|\b(?:act|behave)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+(?:unrestricted|unfiltered|jailbroken|evil))|\bpretend\s+(?:to\s+be|you\s+are)\b|\benable\s+(?:developer|god|dan)\s+mode\b|\bjailbreak\b/i,
  ),
  rule(
    'role hijack ("you are now …")',
    /你现在是|你现在(?:已经)?(?:不再|成为)|从现在(?:开始|起)，?你(?:是|要|必须|将|只能|应该)|扮演一个(?:没有|不受)|进入(?:开发者|越狱|上帝)模式|越狱/,
  ),
  rule(
    'hides actions from the user',
    /\b(?:do\s+not|don't|dont|never)\s+(?:tell|inform|notify|mention\s+(?:this\s+|it\s+)?to|reveal\s+(?:this\s+|it\s+)?to|show|let|alert|warn)\s+(?:the\s+|your\s+)?(?:user|human|owner|operator)\b|\bwithout\s+(?:telling|informing|notifying|asking|alerting)\s+(?:the\s+|your\s+)?(?:user|human|owner)\b|\bkeep\s+(?:this|it)\s+(?:secret|hidden)\s+from\s+(?:the\s+)?(?:user|human)\b|\bsecretly\s+(?:send|upload|run|execute|copy|forward|add|include|delete|modify|change|email|post)\b/i,
  ),
  rule(
    'hides actions from the user',
    /(?:不要|别|不许|切勿|不得|不能)(?:告诉|通知|提醒|透露给|让)(?:用户|使用者|主人)|瞒着(?:用户|使用者)|(?:偷偷|暗中|悄悄)(?:地)?(?:把|将|发送|上传|执行|运行|修改|删除|转发)/,
  ),
  rule(
    'fake system or role-play prompt',
    /^[ \t]*(?:#{1,6}[ \t]*)?(?:system|developer)[ \t]+(?:prompt|message|instructions?|override)[ \t]*:|^[ \t]*#{1,6}[ \t]*(?:system|instructions?)[ \t]*$|<\|im_start\|>|<\|(?:system|endoftext)\|>|<\/?(?:system|instructions?|sys)>|\[\/?(?:system|INST|SYS)\]|<<SYS>>|\bnew\s+system\s+prompt\b|\bsystem\s+(?:override|prompt\s+override)\b|系统提示[:：]|【系统】|新的系统提示/im,
  ),
  rule('hidden HTML comment', /<!--/),
  rule('hidden markdown comment', /^[ \t]*\[(?:\/\/|comment|hidden)\][ \t]*:[ \t]*(?:#|<>)/im),
]

const EXFILTRATION: Rule[] = [
  rule('exfiltration (network command with a secret)', NET, SECRET_VAR),
  rule('exfiltration (network command with a credential file)', NET, SECRET_FILE),
  rule('exfiltration (network command with a .env file)', NET, DOTENV),
  rule('exfiltration (sends data to a paste or capture site)', EXFIL_HOST, NET),
  rule('exfiltration (sends data to a paste or capture site)', EXFIL_HOST, SEND),
  rule('reads credential files', READ, SECRET_FILE),
  rule('reads credential files', SEND, SECRET_FILE),
  rule(
    'reads or sends a .env file',
    /\b(?:cat|less|more|head|tail|type|base64|xxd|cp|scp)\s+\S*\.env\b|(?:读取|发送|上传)\S{0,8}\.env/i,
  ),
  rule('sends secrets', SEND, SECRET_VAR),
  rule(
    'base64-encoded command execution',
    /\bbase64\b/i,
    /\|\s*(?:ba|z|da|k)?sh\b|\beval\b|\bexec\b|\|\s*(?:python3?|node|perl)\b/i,
  ),
  rule('encodes secrets for transfer', /\bbase64\b/i, SECRET_FILE),
  rule('encodes secrets for transfer', /\bbase64\b/i, SECRET_VAR),
]

const SECRETS: Rule[] = [
  rule('private key', /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/),
  rule('Anthropic API key', key('sk-ant-[A-Za-z0-9_-]{16,}')),
  rule('OpenAI-style API key', key('sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}')),
  rule('AWS access key', key('(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])')),
  rule('GitHub token', key('(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})')),
  rule('Slack token', key('xox[abprs]-[A-Za-z0-9-]{10,}')),
  rule('Google API key', key('AIza[0-9A-Za-z_-]{30,}')),
  rule('Stripe key', key('(?:sk|rk)_live_[A-Za-z0-9]{16,}')),
  rule('JSON Web Token', key('eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}')),
  rule('password in a URL', /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]{1,64}:[^\s@/]{3,64}@/i),
]

const RULES: readonly Rule[] = [...INVISIBLE, ...INJECTION, ...EXFILTRATION, ...SECRETS]

function matches(rule: Rule, text: string, lines: () => string[]): boolean {
  const [first, ...rest] = rule.all
  if (!first) return false
  if (rest.length === 0) return first.test(text)
  // Cheap whole-text checks first; the per-line pass runs only when every part appears somewhere.
  if (!rule.all.every((pattern) => pattern.test(text))) return false
  return lines().some((line) => rule.all.every((pattern) => pattern.test(line)))
}

/**
 * Scans text before it is written to a memory file and again before it is put in a prompt: prompt
 * injection, exfiltration, hard-coded secrets and invisible or deceptive Unicode, in English and Chinese.
 * Returns the first reason found. Linear in the text's length.
 */
export function scanForThreats(text: string): ThreatScan {
  let split: string[] | undefined
  const lines = () => {
    split ??= text.split('\n')
    return split
  }
  for (const candidate of RULES) {
    if (matches(candidate, text, lines)) return { ok: false, reason: candidate.reason }
  }
  return { ok: true }
}
