/**
 * The threat scanner for text that reaches a system prompt through the memory files. It matches families
 * of intent, in English and Chinese (Simplified and Traditional, mixed with English), on the text as a
 * reader sees it (see normalize.ts), and again on what obvious encodings decode to (see decode.ts):
 *
 * - hidden text: invisible or deceptive characters (found on the raw text);
 * - override: setting aside earlier instructions or rules;
 * - impersonation: fake system, administrator or developer messages, role hijacks;
 * - concealment: actions to hide from the user;
 * - exfiltration: secrets, environment variables or credential files sent out, image links carrying data;
 * - remote execution: downloaded or encoded code piped to a shell;
 * - secrets: credentials written out in the text.
 *
 * Linear in the text's length: the rules run on chunks of at most {@link CHUNK} characters (overlapping by
 * {@link OVERLAP}, more than any rule spans), so even a pattern with bounded gaps costs a constant per
 * character, and the decoded layers are at most as long as the text, to a fixed depth.
 */

import { type DecodedLayer, decodeLayers, namesRot13 } from './decode.ts'
import { matchFamilies } from './families.ts'
import { heaviestWords, type LinearModel, score, shippedModel } from './model.ts'
import { findHiddenText, foldForMatching, type WorkMeter } from './normalize.ts'

export type { WorkMeter } from './normalize.ts'

export type ThreatScan = { ok: true } | { ok: false; reason: string }

interface Rule {
  reason: string
  /** Every pattern must match the same line (a single pattern may also span lines). */
  all: RegExp[]
  /** A line this returns true for does not count as a match (see {@link statedFact}). */
  except?: (line: string, chunk: string) => boolean
  /** It reads an intent from words alone, so the learned layer may overrule it (see {@link INTENT_FLOOR}). */
  intent?: true
}

/**
 * A pattern without property escapes or supplementary characters needs no Unicode mode, and
 * case-insensitive matching runs several times faster without it (the folded text has no case pairs
 * outside ASCII that these patterns could miss: NFKC has made `ſ` an `s` and the Kelvin sign a `K`).
 */
const plainForms = new Map<RegExp, RegExp>()
const plain = (pattern: RegExp) => {
  let form = plainForms.get(pattern)
  if (form === undefined) {
    form =
      pattern.flags.includes('u') &&
      /^[\x20-\x7e\u00a0-\ud7ff\ue000-\uffff]*$/.test(pattern.source) &&
      !/\\[pPu]\{/.test(pattern.source)
        ? new RegExp(pattern.source, pattern.flags.replace('u', ''))
        : pattern
    plainForms.set(pattern, form)
  }
  return form
}
const rule = (reason: string, ...all: RegExp[]): Rule => ({ reason, all: all.map(plain) })
/** A rule that reads an intent from words alone (an order to drop rules, a claim of authority, …). */
const intent = (reason: string, ...all: RegExp[]): Rule => ({ ...rule(reason, ...all), intent: true })

/** Not preceded by a token character, so `task-…` is not read as an `sk-…` key. */
const START = '(?<![A-Za-z0-9_-])'
const key = (pattern: string) => new RegExp(`${START}${pattern}`)
const words = (...list: string[]) => `(?:${list.join('|')})`

// Up to `n` filler words within one sentence, as tokens that cannot overlap (a run of separators, a whole
// Latin word, one Chinese character), so each gap has one reading and a failed match costs a constant.
const SEPARATORS = `[\\s,，、"'“”‘’]`
const LATIN_WORD = "[\\p{Script=Latin}\\p{N}'’-]"
const TOKEN = `(?:${SEPARATORS}+(?!${SEPARATORS})|${LATIN_WORD}+(?!${LATIN_WORD})|\\p{Script=Han})`
const FILL = (n: number) => `${TOKEN}{0,${2 * n + 2}}?`

const OVERRIDE_VERB = words(
  'ignore',
  'ignoring',
  'disregard',
  'forget',
  'override',
  'bypass',
  'skip',
  'set aside',
  'put aside',
  'discard',
  'abandon',
  'drop',
  'throw out',
  'neglect',
  'stop following',
  "(?:do not|don't|dont|no longer|never) (?:follow|obey|apply|heed|comply with)",
  'supersedes?',
  'replaces?',
  '忽略',
  '无视',
  '忘记',
  '忘掉',
  '忘了',
  '(?:不要|不用|别|不再)?理会',
  '不理',
  '抛开',
  '抛弃',
  '绕过',
  '放弃',
  '别管',
  '不要管',
  '(?:不要|不再|不用|不必|停止|别)(?:遵守|遵循|听从|服从|执行|按照)',
  '跳过',
  '违背',
  '违反',
)
const OVERRIDE_QUALIFIER = words(
  'previous',
  'prior',
  'earlier',
  'above',
  'preceding',
  'former',
  'original',
  'old',
  'initial',
  'existing',
  'default',
  'all',
  'any',
  'every',
  'your',
  'system',
  'safety',
  'security',
  'developer',
  '之前',
  '以前',
  '先前',
  '前面',
  '上面',
  '以上',
  '上述',
  '所有',
  '全部',
  '一切',
  '原来',
  '原有',
  '原先',
  '原始',
  '系统',
  '你的',
  '安全',
  '前述',
  '早先',
)
const OVERRIDE_NOUN = words(
  'instructions?',
  'prompts?',
  'rules?',
  'directions',
  'directives?',
  'guidance',
  'guidelines?',
  'polic(?:y|ies)',
  'constraints?',
  'restrictions?',
  'guardrails?',
  'programming',
  'training',
  'orders',
  'commands',
  'safeguards?',
  'filters?',
  'limitations?',
  'settings',
  'messages?',
  '指令',
  '指示',
  '说明',
  '规则',
  '规定',
  '提示',
  '设定',
  '限制',
  '约束',
  '要求',
  '命令',
  '准则',
  '规范',
  '守则',
  '过滤',
)
const PRIOR = words(
  'previous',
  'prior',
  'earlier',
  'above',
  'original',
  'old',
  'initial',
  'existing',
  'system',
)

const OVERRIDE_REASON = 'prompt injection ("ignore previous instructions")'
const OVERRIDE: Rule[] = [
  intent(
    OVERRIDE_REASON,
    new RegExp(
      `${OVERRIDE_VERB}${FILL(3)}(?:${OVERRIDE_QUALIFIER}${FILL(1)}){1,3}${OVERRIDE_NOUN}(?![\\p{L}])`,
      'iu',
    ),
  ),
  intent(
    OVERRIDE_REASON,
    new RegExp(
      `${OVERRIDE_VERB}\\s+(?:everything|all|anything|whatever|what)\\s+(?:that\\s+)?(?:you|you've|you're)\\s+(?:were|have been|had been|was|been|are|have)?\\s*(?:told|given|instructed|taught|programmed|trained|asked)`,
      'iu',
    ),
  ),
  intent(
    OVERRIDE_REASON,
    new RegExp(
      `(?:${PRIOR}|your)\\s+(?:${OVERRIDE_NOUN})\\s+(?:${words('no longer apply', 'no longer applies', 'are obsolete', 'are void', 'are cancelled', 'are canceled', 'are revoked', 'were a test', 'was a test', "don't apply", 'do not apply', 'are superseded', 'are outdated, follow')})`,
      'iu',
    ),
  ),
  intent(
    OVERRIDE_REASON,
    /\b(?:new|real|true|actual|updated)\s+instructions\s+(?:follow|below|are)\b|\btreat\s+(?:this|the text below|these notes|this note|this file)\s+as\s+(?:your\s+)?(?:real|new|true|only|actual)\s+instructions|\b(?:your\s+)?only\s+(?:goal|task|job|rule)\s+is\s+to\s+obey|\bobey\s+(?:this|these|me|the next)\s+(?:note|memory|file|message|user|instructions?)?/iu,
  ),
  intent(
    OVERRIDE_REASON,
    /(?:之前|以前|先前|上面|原来)的(?:指令|指示|规则|规定|设定)(?:都)?(?:作废|无效|不再适用|失效)|(?:新|真正)的指令(?:如下|是)/u,
  ),
]

const ADMIN = words(
  'system',
  'admin',
  'administrator',
  'sysadmin',
  'root',
  'developer',
  'developers',
  'operator',
  'openai',
  'anthropic',
  'security team',
  'creator',
)
const IMPERSONATION: Rule[] = [
  intent(
    'impersonation of a system or administrator message',
    new RegExp(
      `^[ \\t>*#\\-(]*[\\[<【]?[ \\t]*${ADMIN}(?:[ \\t]+${words('message', 'notice', 'notification', 'override', 'alert', 'announcement', 'instructions?', 'update', 'directive', 'command', 'order', 'note', 'prompt')})?[ \\t]*[\\]>】]?[ \\t]*[:：\\]】>#-][^\\n]{0,120}?\\b${words('you', 'assistant', 'ai', 'model', 'must', 'obey', 'comply', 'granted', 'authori[sz]', 'approved', 'disabled', 'unrestricted', 'override', 'filters?', 'restrictions?', 'ignore', 'requests', 'reveal', 'lifted', 'privileges', 'rights')}`,
      'imu',
    ),
  ),
  intent(
    'impersonation of a system or administrator message',
    new RegExp(
      `\\b(?:message|notice|order|instructions?|directive|note|word|update)s?\\s+from\\s+(?:the\\s+|your\\s+)?${ADMIN}\\b|\\bthis\\s+is\\s+(?:the|your)\\s+${ADMIN}\\b|\\b(?:i\\s+am|i'm)\\s+(?:your|the)\\s+(?:${words('developer', 'creator', 'administrator', 'admin', 'operator', 'maker', 'programmer', 'system')})\\b|\\b${words('admin', 'administrator', 'system', 'developer', 'root', 'security')}\\s+override\\b`,
      'iu',
    ),
  ),
  intent(
    'impersonation of a system or administrator message',
    new RegExp(
      `\\b${words('all restrictions', 'restrictions', 'safety filters?', 'content filters?', 'safety checks?', 'security checks?', 'safety rules', 'guardrails', 'safeguards', 'content policy', 'all filters', 'all content filters')}\\s+(?:are|is|have been|has been|were)?\\s*(?:now\\s+)?${words('disabled', 'off', 'switched off', 'turned off', 'lifted', 'removed', 'suspended', 'bypassed', 'deactivated')}\\b|\\b(?:granted|authori[sz]ed?|approved|permitted|allowed|given)\\s+(?:you\\s+|the\\s+assistant\\s+)?(?:to\\s+)?(?:${words('admin', 'administrator', 'root', 'full', 'unrestricted', 'unlimited', 'elevated')})\\s+${words('rights', 'access', 'privileges', 'permissions', 'mode', 'shell access')}|\\b${words('unrestricted', 'jailbreak', 'jailbroken', 'god', 'dan', 'no[-\\s]?limits?', 'uncensored', 'unfiltered')}\\s+mode\\b|\\bauthori[sz]e\\s+you\\s+to\\s+${words('skip', 'bypass', 'ignore', 'disable', 'override', 'break')}`,
      'iu',
    ),
  ),
  intent(
    'impersonation of a system or administrator message',
    /[【[]\s*(?:系统|管理员|开发者|系统管理员)[^】\]\n]{0,6}[】\]]|(?:^|[\s。！])(?:系统|管理员|开发者|系统管理员)(?:消息|讯息|通知|指令|公告|提示)?[:：]|(?:系统|管理员|开发者)(?:消息|讯息|通知|指令|公告)[:：]|以(?:系统)?管理员(?:的)?身份|我是(?:你的)?(?:系统管理员|管理员|开发者|开发人员|创造者|创建者|主人)|来自(?:系统|管理员|开发者)的(?:消息|通知|指令)|授权你|(?:关闭|取消|解除|禁用|停用)(?:了)?(?:所有|全部|一切)?的?(?:过滤|安全|限制|审查|约束)|(?:没有|不受|无)任何(?:限制|约束|审查|过滤)/mu,
  ),
  intent(
    'role hijack ("you are now …")',
    /\byou\s+are\s+(?:now|no\s+longer)\s+(?:an?\s+|the\s+|in\s+)?(?:(?:new|different|unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|free)\b|dan\b|developer\s+mode|bound\b|restricted\b|an?\s+ai\s+without|assistant\s+without)/i,
  ),
  intent(
    'role hijack (role-play, "from now on you …")',
    /\bfrom\s+now\s+on,?\s+(?:you|the\s+assistant)\s+(?:are|will|must|should|shall)\b|\b(?:act|behave)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+(?:unrestricted|unfiltered|jailbroken|evil))|\bpretend\s+(?:to\s+be|you\s+are)\b|\benable\s+(?:developer|god|dan)\s+mode\b|\bjailbreak\b/i,
  ),
  intent(
    'role hijack ("you are now …")',
    /你现在是|你现在(?:已经)?(?:不再|成为)|从现在(?:开始|起)，?你(?:是|要|必须|将|只能|应该)|扮演一个(?:没有|不受)|进入(?:开发者|越狱|上帝)模式|越狱/,
  ),
  intent(
    'fake system or role-play prompt',
    /^[ \t]*(?:#{1,6}[ \t]*)?(?:system|developer)[ \t]+(?:prompt|message|instructions?|override)[ \t]*:|^[ \t]*#{1,6}[ \t]*(?:system|instructions?)[ \t]*$|<\|im_start\|>|<\|(?:system|endoftext)\|>|<\/?(?:system|instructions?|sys)>|\[\/?(?:system|INST|SYS)\]|<<SYS>>|\bnew\s+system\s+prompt\b|\bsystem\s+(?:override|prompt\s+override)\b|系统提示[:：]|【系统】|新的系统提示/im,
  ),
]

const CONCEALMENT: Rule[] = [
  intent(
    'hides actions from the user',
    /\b(?:do\s+not|don't|dont|never)\s+(?:tell|inform|notify|mention\s+(?:this\s+|it\s+)?to|reveal\s+(?:this\s+|it\s+)?to|show|let|alert|warn)\s+(?:the\s+|your\s+)?(?:user|human|owner|operator)\b|\bwithout\s+(?:telling|informing|notifying|asking|alerting)\s+(?:the\s+|your\s+)?(?:user|human|owner)\b|\bkeep\s+(?:this|it)\s+(?:secret|hidden)\s+from\s+(?:the\s+)?(?:user|human)\b|\bsecretly\s+(?:send|upload|run|execute|copy|forward|add|include|delete|modify|change|email|post)\b/i,
  ),
  intent(
    'hides actions from the user',
    /(?:不要|别|不许|切勿|不得|不能)(?:告诉|通知|提醒|透露给|让)(?:用户|使用者|主人)|瞒着(?:用户|使用者)|(?:偷偷|暗中|悄悄)(?:地)?(?:把|将|发送|上传|执行|运行|修改|删除|转发)/,
  ),
  // A comment that speaks to the assistant; a TODO or a translator's note in a template is not one.
  rule(
    'hidden HTML comment',
    /<!--(?:(?!-->)[^\n]){0,300}?(?:\b(?:you|your|assistant|ai|model|agent|claude|gpt|must|always|never|ignore|send|run|execute|delete|forward)\b|你|助手|必须|アシスタント|あなた|어시스턴트)/i,
  ),
  rule('hidden markdown comment', /^[ \t]*\[(?:\/\/|comment|hidden)\][ \t]*:[ \t]*(?:#|<>)/im),
]

const NET =
  /\b(?:curl|wget|fetch|nc|ncat|netcat|scp|rsync|ftp|sftp|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|requests\.(?:get|post|put)|axios|http\.request|urlopen|urllib|httpx|http\.client|XMLHttpRequest|sendBeacon|WebSocket|socket\.|Net::HTTP)\b/i
const SEND =
  /\b(?:send|sends|post|upload|uploads|exfiltrate|leak|forward|transmit|e-?mail|paste|attach|share|mail|push|sync)\b|发送|上传|转发|传到|发到|贴到|发给|传给|寄给|提交到|发往/i
const READ =
  /\b(?:cat|less|more|head|tail|type|base64|xxd|strings|tar|zip|cp|scp|read|print|dump|open|show|reveal|display)\b|读取|查看|打印|显示|输出|打开/i
const SECRET_VAR =
  /\$\{?[A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)\b|\bprocess\.env\b|\bos\.environ\b|\bos\.getenv\b|\bgetenv\s*\(|\bENV\[|\b(?:printenv|env)\s*\||\$\(\s*(?:printenv|env)\s*\)|环境变量|环境变数/i
const SECRET_FILE =
  /~\/\.ssh\b|\.ssh\/id_|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws\/credentials|\.config\/gcloud|application_default_credentials|\.kube\/config|\.netrc\b|\.npmrc\b|\.pypirc\b|\.pgpass\b|\.docker\/config\.json|\/etc\/(?:shadow|passwd)|\.git-credentials|\.bash_history/i
const DOTENV =
  /(?:^|[\s'"`/@])\.env(?:\.(?:local|production|prod|development|dev|staging))?(?=$|[\s'"`;|&),，。的])/
const REMOTE = /\bhttps?:\/\/(?!(?:localhost|127\.0\.0\.1)\b)|\bftp:\/\/|\S@\S+\.\S/i
const EXFIL_HOST =
  /\b(?:pastebin\.com|paste\.ee|hastebin|ghostbin|termbin\.com|0x0\.st|transfer\.sh|ix\.io|webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app)|burpcollaborator|interact\.sh|oast\.(?:fun|me|pro|live|site|online))/i
// A remote image whose query carries something to fill in: a placeholder, a variable, or a data parameter.
const IMAGE_BEACON = new RegExp(
  `!\\[[^\\]\\n]{0,200}\\]\\(\\s*<?https?:\\/\\/[^)\\s?]{1,300}\\?[^)\\s]{0,300}?(?:[{$<\\[]|%s|=[A-Z][A-Z0-9]*_[A-Z0-9_]+|\\b${words('d', 'data', 'q', 'query', 'secret', 'key', 'token', 'k', 't', 'msg', 'message', 'chat', 'conv', 'conversation', 'history', 'summary', 'content', 'text', 'env', 'cookie', 'session', 'payload', 'info', 'leak', 'pw', 'pass', 'password', 'c', 'x')}=)`,
  'i',
)
const SECRET_NOUNS =
  /\b(?:api[\s_-]?keys?|secret\s+keys?|secrets|credentials|passwords?|access\s+tokens?|auth\s+tokens?|env(?:ironment)?\s+var(?:iable)?s)\b|密钥|密码|令牌|凭证|凭据/i

const EXFILTRATION: Rule[] = [
  rule('exfiltration (image link that carries data to a remote host)', IMAGE_BEACON),
  rule('exfiltration (network command with a secret)', NET, SECRET_VAR),
  rule('exfiltration (secret sent to a remote address)', SECRET_VAR, REMOTE),
  rule('exfiltration (network command with a credential file)', NET, SECRET_FILE),
  rule('exfiltration (network command with a .env file)', NET, DOTENV),
  rule('exfiltration (sends data to a paste or capture site)', EXFIL_HOST, NET),
  rule('exfiltration (sends data to a paste or capture site)', EXFIL_HOST, SEND),
  rule('exfiltration (data piped to a network socket)', /\|\s*(?:nc|ncat|netcat|telnet)\s+\S+\s+\d{2,5}\b/i),
  rule('reads credential files', READ, SECRET_FILE),
  rule('reads credential files', SEND, SECRET_FILE),
  rule(
    'reads or sends a .env file',
    /\b(?:cat|less|more|head|tail|type|base64|xxd|cp|scp)\s+\S*\.env\b|(?:读取|发送|上传)\S{0,8}\.env/i,
  ),
  rule('reads or sends a .env file', SEND, DOTENV),
  rule('sends secrets', SEND, SECRET_VAR),
  intent('sends secrets', SEND, SECRET_NOUNS, REMOTE),
  rule('encodes secrets for transfer', /\bbase64\b/i, SECRET_FILE),
  rule('encodes secrets for transfer', /\bbase64\b/i, SECRET_VAR),
]

/** `we` or `I` (or our team, CI, …) opening the line: the user describing their own practice. */
const FIRST_PERSON =
  /^[ \t>*•-]*(?:we|i|our\s+(?:team|ci|pipeline|deploys?|servers?|setup|build|company)|my\s+team|the\s+team)(?![\p{L}])|^[ \t>*•-]*(?:我们|我)/iu
/** Said of something done: installed already, by the vendor's documented way. */
const DONE =
  /\b(?:already|was\s+installed|were\s+installed|is\s+installed|installed\s+(?:via|with|using|it)|per\s+(?:their|the\s+official|the\s+vendor's)\s+docs|setup\s+is)\b|已经|已安装|装好了|済み|インストールした|설치했|설치됨|ya\s+instalad|bereits\s+installiert|déjà\s+install|já\s+instalad|уже\s+установ/iu
/** Words that turn a note into an order to the assistant, or a second sentence that gives one. */
const ORDER =
  /\b(?:you|your|assistant|agent|always|must|should|automatically|whenever|every\s+time|make\s+sure|remember\s+to|need\s+to|ensure|without\s+asking)\b|(?:^|[.!?;]\s+)(?:run|execute|install|download|pipe|fetch|eval|paste|type)\b|你|必须|自动|总是|每次/imu
/** The piped download comes from an https URL naming a domain, not an address, a paste site or a shortener. */
const NAMED_HTTPS =
  /\b(?:curl|wget)\b[^\n|]{0,100}?\bhttps:\/\/(?!(?:\d{1,3}\.){3}\d{1,3}\b)(?!(?:bit\.ly|tinyurl\.com|t\.co|is\.gd|goo\.gl|rb\.gy|cutt\.ly)\/)[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:[/:?#\s"'`)]|$)/i

/**
 * The user's own deploy or install note stated as a fact ("We deploy with curl https://get.fly.io | sh"):
 * first person, a download from a named https domain, and no order to the assistant anywhere in the entry.
 * An instruction to run the same command ("Install rustup with curl … | sh", "always run …") is still
 * remote code execution, and so is anything encoded, piped from an address, or sent from a paste site.
 */
function statedFact(line: string, chunk: string): boolean {
  return (
    (FIRST_PERSON.test(line) || DONE.test(line)) &&
    NAMED_HTTPS.test(line) &&
    !ORDER.test(chunk) &&
    !EXFIL_HOST.test(line)
  )
}

const SHELL =
  '(?:sudo\\s+(?:-\\S+\\s+)*)?(?:env\\s+)?(?:(?:ba|z|da|k|c|tc|fi|a)?sh|python[23]?|perl|ruby|node|php|iex|invoke-expression|powershell|pwsh)\\b'
const FETCHER = '(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|lwp-download|http)'
const REMOTE_EXECUTION: Rule[] = [
  {
    ...rule(
      'remote code execution (download piped to a shell)',
      // The fetcher has an argument: "no curl | bash in Dockerfiles" names the practice, runs nothing.
      new RegExp(`\\b${FETCHER}\\b[ \\t]+[^\\s|][^\\n|]{0,400}\\|\\s*${SHELL}`, 'i'),
    ),
    except: statedFact,
  },
  {
    ...rule(
      'remote code execution (download run by a shell)',
      new RegExp(
        `\\b(?:(?:ba|z|da|k)?sh\\s+-c|(?:node|python[23]?|perl|ruby|php)\\s+-[ec]|eval|source|exec)\\s+["']?\\$\\(\\s*${FETCHER}\\b|\\b(?:(?:ba|z|da|k)?sh|source|\\.)\\s+<\\(\\s*${FETCHER}\\b|\\b(?:iex|invoke-expression)\\b[^\\n]{0,200}\\b(?:downloadstring|iwr|irm|invoke-webrequest|invoke-restmethod|net\\.webclient)|\\/dev\\/tcp\\/`,
        'i',
      ),
    ),
    except: statedFact,
  },
  rule(
    'encoded command execution',
    /\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]{0,100}\s[-/](?:e|ec|en|enc|enco|encod|encode|encoded|encodedcommand)\s+[A-Za-z0-9+/=]{16,}/i,
  ),
  rule(
    'encoded command execution',
    /\bbase64\b/i,
    /\|\s*(?:ba|z|da|k)?sh\b|\beval\b|\bexec\b|\|\s*(?:python3?|node|perl)\b/i,
  ),
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

const RULES: readonly Rule[] = [
  ...OVERRIDE,
  ...IMPERSONATION,
  ...CONCEALMENT,
  ...EXFILTRATION,
  ...REMOTE_EXECUTION,
  ...SECRETS,
]

/** The longest stretch one rule looks at is far below this: a match cannot fall between two chunks. */
const OVERLAP = 1_024
const CHUNK = 8 * OVERLAP
/** Characters of work the family rules do per character (each cue group is one regex over a sentence). */
const FAMILY_WORK = 40
/** Encodings inside encodings are decoded to this depth. */
const DECODE_DEPTH = 2

/** `text` in chunks of at most CHUNK characters, each starting OVERLAP before the previous one ends. */
function chunksOf(text: string): string[] {
  if (text.length <= CHUNK) return [text]
  const chunks: string[] = []
  for (let start = 0; start < text.length; start += CHUNK - OVERLAP) {
    chunks.push(text.slice(start, start + CHUNK))
    if (start + CHUNK >= text.length) break
  }
  return chunks
}

/** Whether a pattern matches a chunk, each pattern tested once per chunk (several rules share one). */
type ChunkTest = (pattern: RegExp) => boolean

function matches(
  rule: Rule,
  chunk: string,
  test: ChunkTest,
  lines: () => string[],
  meter?: WorkMeter,
): boolean {
  const [first, ...rest] = rule.all
  if (!first) return false
  if (meter) meter.chars += chunk.length * rule.all.length
  if (rest.length === 0 && !rule.except) return test(first)
  // Cheap whole-chunk checks first; the per-line pass runs only when every part appears somewhere.
  if (!rule.all.every(test)) return false
  if (meter) meter.chars += chunk.length * rule.all.length
  return lines().some(
    (line) => rule.all.every((pattern) => pattern.test(line)) && !rule.except?.(line, chunk),
  )
}

/** A rule's verdict on a text: its reason, and whether it read an intent from words alone ({@link Rule}). */
interface RuleMatch {
  reason: string
  intent: boolean
}

/**
 * The first rule that matches, a rule that recognises a thing (a key, an encoded command, a download piped
 * to a shell) before one that reads an intent from words: only the latter may be overruled.
 */
function matchRules(folded: string, meter?: WorkMeter): RuleMatch | null {
  let byWords: RuleMatch | null = null
  for (const chunk of chunksOf(folded)) {
    let split: string[] | undefined
    const lines = () => {
      split ??= chunk.split('\n')
      return split
    }
    const tested = new Map<RegExp, boolean>()
    const test = (pattern: RegExp) => {
      let found = tested.get(pattern)
      if (found === undefined) {
        found = pattern.test(chunk)
        tested.set(pattern, found)
      }
      return found
    }
    for (const candidate of RULES) {
      if (byWords !== null && candidate.intent) continue
      if (!matches(candidate, chunk, test, lines, meter)) continue
      if (!candidate.intent) return { reason: candidate.reason, intent: false }
      byWords = { reason: candidate.reason, intent: true }
    }
    if (byWords !== null) continue
    if (meter) meter.chars += chunk.length * FAMILY_WORK
    const family = matchFamilies(chunk)
    if (family) byWords = { reason: family.reason, intent: true }
  }
  return byWords
}

/**
 * `folded` without the lines the remote-code rules let through as the user's own stated install or deploy
 * (see {@link statedFact}): the families decided those lines, and the learned layer judges the rest, so a
 * fact cannot carry an order past it either.
 */
function withoutStatedFacts(folded: string): string {
  if (!/\b(?:curl|wget)\b/i.test(folded)) return folded
  return folded
    .split('\n')
    .filter((line) => !(/\b(?:curl|wget)\b/i.test(line) && statedFact(line, folded)))
    .join('\n')
}

/** Characters of work the learned layer does per character of text (n-gram hashes and look-ups). */
const MODEL_WORK = 8

/** Why the learned layer refuses folded text it scored `probability`: the words that weighed most. */
function explain(model: LinearModel, folded: string, probability: number): string {
  const quoted = heaviestWords(model, folded)
    .map((word) => JSON.stringify(word))
    .join(', ')
  return `an instruction planted for the assistant (learned layer, score ${probability.toFixed(2)}${quoted ? `; weighed most: ${quoted}` : ''})`
}

interface Layer {
  folded: string
  /** The encodings it was found inside, outermost first. */
  via: string[]
}

/**
 * The text and every readable decoding of it, to {@link DECODE_DEPTH}, each folded for matching; or the
 * reason when a decoded layer holds hidden text. At most a constant number of layers, none longer than the text.
 */
function layersOf(text: string, meter?: WorkMeter): Layer[] | string {
  const layers: Layer[] = []
  // `rot13Named`: this layer or one around it says ROT13 is used ("base64 of rot13: …").
  const visit = (raw: string, via: string[], rot13Named: boolean): string | null => {
    layers.push({ folded: foldForMatching(raw, meter), via })
    if (via.length >= DECODE_DEPTH) return null
    const named = rot13Named || namesRot13(raw)
    for (const layer of decodeLayers(raw, meter, named) as DecodedLayer[]) {
      const path = [...via, layer.encoding]
      const hidden = findHiddenText(layer.text, meter)
      if (hidden !== null) return `${hidden.reason}${where(path)}`
      const inner = visit(layer.text, path, named)
      if (inner !== null) return inner
    }
    return null
  }
  return visit(text, [], false) ?? layers
}

/** `, hidden in base64, hidden in hex`: innermost encoding first. */
const where = (via: string[]) =>
  via
    .toReversed()
    .map((encoding) => `, hidden in ${encoding}`)
    .join('')

/** A verdict, and the learned layer's highest probability over the layers (1 when a rule refused). */
interface Assessment {
  reason: string | null
  score: number
}

/**
 * {@link scanForThreats} with a given learned layer (`null`: the rules alone). The scanner's training and
 * evaluation scripts use it to measure models trained on part of the corpora.
 */
export function scanWithModel(text: string, model: LinearModel | null, meter?: WorkMeter): ThreatScan {
  const { reason } = assess(text, model, meter)
  return reason === null ? { ok: true } : { ok: false, reason }
}

/**
 * Below this probability of the learned layer, a rule that reads an intent from words alone does not refuse:
 * "IT never asks for passwords by e-mail" holds "send", "passwords" and an address, and reads as no order
 * at all. Chosen on eight fresh lists of the standard brief and eight of contrastive pairs (2026-12-05,
 * docs/threat-scanning.md, round 15): at 0.1 they refused 7 and 6 fewer innocent entries and no fewer
 * hostile ones; held out by writer over 109 writers, 1.7% → 1.3% of innocent entries at the same 94.8%
 * of hostile ones (threshold 0.75).
 */
const INTENT_FLOOR = 0.1

/**
 * Hidden text on the raw text, then the rules on every layer (their reasons are the most precise), then
 * the learned layer. A rule that reads an intent from words refuses unless the learned layer scores every
 * layer under {@link INTENT_FLOOR}, and so does a lone zero-width character, which hides nothing (its
 * text is scanned without it); without a learned layer (`model` null) every rule refuses.
 */
function assess(text: string, model: LinearModel | null, meter?: WorkMeter): Assessment {
  const hidden = findHiddenText(text, meter)
  if (hidden !== null && (!hidden.lone || model === null)) return { reason: hidden.reason, score: 1 }
  const layers = layersOf(text, meter)
  if (typeof layers === 'string') return { reason: layers, score: 1 }
  let byWords: string | null = null
  for (const layer of layers) {
    const found = matchRules(layer.folded, meter)
    if (found === null) continue
    const reason = `${found.reason}${where(layer.via)}`
    if (!found.intent || model === null) return { reason, score: 1 }
    byWords ??= reason
  }
  byWords ??= hidden?.reason ?? null
  let highest = 0
  if (model === null) return { reason: null, score: highest }
  for (const layer of layers) {
    const folded = withoutStatedFacts(layer.folded)
    if (meter) meter.chars += folded.length * MODEL_WORK
    const probability = score(model, folded)
    // A rule's verdict stands once a layer reaches the floor; only the learned layer's refusal pays for its explanation.
    if (byWords !== null) {
      if (probability >= INTENT_FLOOR) return { reason: byWords, score: 1 }
    } else if (probability >= model.threshold) {
      return { reason: `${explain(model, folded, probability)}${where(layer.via)}`, score: probability }
    }
    highest = Math.max(highest, probability)
  }
  return { reason: null, score: highest }
}

/**
 * The scan with the learned layer's highest probability over the text's layers (1 when a rule refused,
 * at or above the threshold when the learned layer did): how sure the first stage is, for the optional
 * second opinion (see second-opinion.ts).
 */
export function firstStage(text: string): { scan: ThreatScan; score: number; threshold: number } {
  const model = shippedModel()
  const { reason, score: highest } = assess(text, model)
  return {
    scan: reason === null ? { ok: true } : { ok: false, reason },
    score: highest,
    threshold: model.threshold,
  }
}

/**
 * Scans text before it is written to a memory file and again before it is put in a prompt: hidden text,
 * instruction overrides, impersonation, concealment, exfiltration, remote execution and written-out
 * secrets, in English and Chinese, also behind obvious encodings. Returns the first reason found. Linear
 * in the text's length; `meter`, when given, is increased by the characters visited.
 */
export function scanForThreats(text: string, meter?: WorkMeter): ThreatScan {
  return scanWithModel(text, shippedModel(), meter)
}
