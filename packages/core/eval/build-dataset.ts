/**
 * Generates eval/search-dataset.json (deterministic): `npx tsx packages/core/eval/build-dataset.ts`.
 *
 * Messages: sessions of agent conversations in English, Chinese, Japanese and Korean, built from
 * hand-written sentences (coding, deployment, databases, preferences, travel …) and a few hand-written
 * "fact" messages that the natural-language queries target.
 * Relevance: CJK verbatim queries → every message containing the substring (computed); English word /
 * identifier / stem queries → every message matching a hand-written regex of the word family (computed);
 * natural-language questions → the hand-picked fact messages (fillers never state those facts).
 */
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { DatasetMessage, DatasetQuery, DatasetSession, Lang } from './dataset.ts'

type Msg = DatasetMessage
type Session = DatasetSession
type Query = DatasetQuery

let seed = 20240607
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)] as T

const FILL = {
  proj: ['engram', 'atlas', 'orion', 'kestrel', 'nimbus', 'quartz'],
  n: ['3', '5', '12', '42', '128', '2048'],
  ver: ['v1.4.2', 'v2.0.0', 'v0.9.1', 'v3.1.0'],
}
const fill = (s: string) => s.replace(/\{(proj|n|ver)\}/g, (_, k: keyof typeof FILL) => pick(FILL[k]))

const EN: Record<string, string[]> = {
  coding: [
    'The failing test is in packages/{proj}/src/parser.ts, the tokenizer drops the last token.',
    'I refactored the retry helper so it backs off exponentially after {n} attempts.',
    'Can you write a unit test for the chat-send command?',
    'The TypeScript compiler complains about an implicit any in utils.ts.',
    'Let us rename the helper to formatTimestamp and export it from the index.',
    'The lint step fails because of an unused import in the router module.',
    'I added a regression test; the bug was an off-by-one error in the pagination code.',
    'Please review the pull request before lunch, it touches the cache layer.',
    'The function sp_new1 in the legacy schema is still called by the billing job.',
    'We should split the monolith into smaller modules, starting with auth.',
    'Tests are green now, {n} passed and none failed.',
    'The memory leak came from an event listener that was never removed.',
  ],
  deploy: [
    'The deploy to staging finished, version {ver} is live there.',
    'We are deploying {proj} to production tonight after the freeze ends.',
    'The deployment pipeline runs on GitHub Actions and pushes the image to the registry.',
    'Rollback worked: the previous build was deployed again in two minutes.',
    'Kubernetes restarted the pod {n} times because the health check timed out.',
    'The Docker image is 1.2 GB, we should use a slimmer base image.',
    'Nginx returns 502 when the upstream container is still starting.',
    'Blue-green deploys would avoid the downtime we saw on Friday.',
    'The canary release got {n} percent of the traffic for an hour.',
    'Terraform plan shows three resources to change in the VPC.',
  ],
  db: [
    'The users table needs an index on email, queries take {n} ms.',
    'SQLite is in WAL mode now, readers no longer block the writer.',
    'The migration adds a nullable column, so it is safe to run online.',
    'PostgreSQL vacuum has not run for days on the events table.',
    'Backups are taken every night at 2am and kept for 30 days.',
    'We saw database is locked errors when two processes wrote at once.',
    'The query planner ignores the composite index because of the OR clause.',
    'Connection pooling with pgbouncer cut the latency in half.',
    'The FTS5 index is rebuilt by the doctor command.',
    'Replication lag on the read replica reached {n} seconds.',
  ],
  prefs: [
    'I prefer tabs over spaces, but the formatter decides anyway.',
    'Please answer in short bullet points, no long essays.',
    'My editor is Neovim with the LSP setup from last year.',
    'I like dark themes and a monospace font with ligatures.',
    'Call me Sam, and keep commit messages in the imperative mood.',
    'I usually work from 9 to 5 Berlin time.',
  ],
  travel: [
    'I am flying to Tokyo next month for a conference.',
    'Can you find a hotel near the station in Kyoto?',
    'The train from Osaka to Kyoto takes about fifteen minutes.',
    'I need a visa checklist for the trip to Seoul.',
    'My flight was delayed by three hours because of the snow.',
    'Book a table for two at a sushi restaurant on Friday.',
  ],
}
const EN_FACTS: [string, string][] = [
  [
    'en-fact-migration',
    'We decided to run the database migration in two steps: expand the schema first, then contract it after the backfill.',
  ],
  [
    'en-fact-migration2',
    'Decision recorded: the orders migration is postponed until the new database replica is ready.',
  ],
  ['en-fact-editor', 'For the record, my favourite editor is Neovim and I never want VS Code suggestions.'],
  ['en-fact-config', 'The port is configured in my-app.config.ts, default 8080.'],
  ['en-fact-milestone', 'Milestone P2.2 covers search and the doctor command.'],
  ['en-fact-cpp', 'The engine is written in C++ with a thin Rust wrapper.'],
  ['en-fact-outage', 'Root cause of the outage: the TLS certificate expired on the load balancer.'],
  ['en-fact-budget', 'Our cloud budget is capped at 400 dollars per month.'],
  ['en-fact-cat', 'My cat Miso knocked the laptop off the desk again.'],
  ['en-fact-kyoto', 'Reminder: the ryokan in Kyoto is booked for April 3 to April 6.'],
]

const ZH: Record<string, string[]> = {
  coding: [
    '我用FastAPI做后端，前端用React。',
    '这个函数的返回值类型不对，需要改成Promise。',
    '单元测试覆盖率只有百分之六十，要再补一些。',
    '请帮我重构一下这个模块，代码太乱了。',
    'Agent通信协议用的是JSON-RPC。',
    '编译器报错说找不到模块，可能是路径写错了。',
    '这个接口的响应时间太长了，要加缓存。',
    '代码审查发现了一个空指针的问题。',
    '我们把日志级别调成了调试模式。',
    '类型检查已经通过了，可以合并了。',
  ],
  deploy: [
    '今晚把服务部署到生产环境。',
    '测试进度100%完成，可以发布了。',
    '部署失败了，容器一直在重启。',
    '回滚到上一个版本以后恢复正常。',
    '镜像太大了，构建要十分钟。',
    '负载均衡器的证书下周过期。',
    '灰度发布先放百分之五的流量。',
    '服务器的内存快用完了。',
  ],
  db: [
    '数据库迁移脚本在drizzle目录里。',
    '这张表需要加一个索引，查询太慢了。',
    '我们决定用PostgreSQL作为主数据库。',
    '每天凌晨两点自动备份数据库。',
    '两个进程同时写入时出现了数据库锁定错误。',
    '全文搜索不支持中文分词，要想办法解决。',
    '主从复制的延迟有点高。',
    '连接池的大小设成了二十。',
  ],
  prefs: [
    '我喜欢简洁的回答，不要太长。',
    '请用中文回复我。',
    '我平时用深色主题的编辑器。',
    '我是做后端开发的，主要写Go和Python。',
    '周末我一般不看工作消息。',
  ],
  travel: [
    '下个月我要去东京出差。',
    '帮我订一张去上海的高铁票。',
    '北京的天气预报说明天有雪。',
    '我想找一家安静的酒店，离地铁站近一点。',
    '这次旅行的预算是五千元。',
    '成都的火锅很好吃。',
  ],
}
const ZH_FACTS: [string, string][] = [
  ['zh-fact-db', '最后我们决定数据库迁移分两步做：先加新字段，再删除旧字段。'],
  ['zh-fact-cat', '我家的猫叫年糕，特别喜欢睡在键盘上。'],
  ['zh-fact-allergy', '提醒一下：我对花生过敏，订餐的时候要注意。'],
  ['zh-fact-outage', '这次故障的原因是证书过期，已经续期了。'],
  ['zh-fact-birthday', '我妈妈的生日是十月八号，记得提醒我买礼物。'],
]

const JA: Record<string, string[]> = {
  coding: [
    'このテストはパーサーの境界条件で失敗します。',
    'リファクタリングしてヘルパー関数を共通化しました。',
    '型エラーが三つ残っています。',
    'コードレビューでメモリリークが見つかりました。',
    'カタカナのテストケースを追加してください。',
    'ログの出力形式をJSONに変更しました。',
    '非同期処理の例外が握りつぶされています。',
    'このモジュールは依存関係が多すぎます。',
  ],
  deploy: [
    'デプロイは明日の朝に行います。',
    '本番環境へのリリースが完了しました。',
    'コンテナが再起動を繰り返しています。',
    'ロールバックしたら正常に戻りました。',
    'ステージング環境で動作確認をお願いします。',
    'サーバーの負荷が高くなっています。',
  ],
  db: [
    'データベースの移行は週末に実施します。',
    'インデックスを追加したら検索が速くなりました。',
    'バックアップは毎晩自動で取得しています。',
    '全文検索で日本語が見つからない問題があります。',
    'テーブルのロックで書き込みが待たされています。',
    'レプリカの遅延が大きくなっています。',
  ],
  prefs: [
    '回答は短めにしてください。',
    '敬語は使わなくて大丈夫です。',
    'エディタはダークテーマが好きです。',
    '朝は集中できるので難しい作業をします。',
  ],
  travel: [
    '来週は京都に出張します。',
    '東京駅の近くでホテルを探しています。',
    '新幹線の指定席を予約しました。',
    '大阪でたこ焼きを食べました。',
    '北海道は雪がすごかったです。',
    'ソウル行きの飛行機が遅れました。',
  ],
}
const JA_FACTS: [string, string][] = [
  [
    'ja-fact-db',
    'データベースの移行は二段階で行うことに決めました。まず列を追加し、後で古い列を削除します。',
  ],
  ['ja-fact-cat', 'うちの猫のタマはキーボードの上で寝るのが好きです。'],
  ['ja-fact-allergy', '私はそばアレルギーなので、お店選びに注意してください。'],
  ['ja-fact-release', 'リリース日は四月十日に決定しました。'],
  ['ja-fact-tool', 'タスク管理にはNotionを使うことにしました。'],
]

const KO: Record<string, string[]> = {
  coding: [
    '이 테스트는 파서의 경계 조건에서 실패합니다.',
    '헬퍼 함수를 리팩터링했습니다.',
    '타입 오류가 세 개 남아 있어요.',
    '코드 리뷰에서 메모리 누수를 발견했습니다.',
    '로그 형식을 JSON으로 바꿨어요.',
    '비동기 예외 처리가 빠져 있습니다.',
    '단위 테스트를 더 추가해 주세요.',
  ],
  deploy: [
    '배포는 내일 아침에 합니다.',
    '운영 환경 배포가 끝났습니다.',
    '컨테이너가 계속 재시작되고 있어요.',
    '롤백하니까 정상으로 돌아왔습니다.',
    '스테이징 서버에서 확인 부탁드립니다.',
    '서버 부하가 높아지고 있습니다.',
  ],
  db: [
    '데이터베이스를 PostgreSQL로 마이그레이션했습니다.',
    '인덱스를 추가하니 검색이 빨라졌어요.',
    '백업은 매일 밤 자동으로 진행됩니다.',
    '전문 검색에서 한국어가 검색되지 않아요.',
    '테이블 잠금 때문에 쓰기가 지연됩니다.',
    '복제 지연이 커지고 있습니다.',
  ],
  prefs: [
    '답변은 짧게 해 주세요.',
    '반말로 편하게 얘기해도 돼요.',
    '에디터는 다크 테마를 좋아합니다.',
    '저는 아침에 집중이 잘 돼요.',
  ],
  travel: [
    '다음 주에 부산으로 출장을 갑니다.',
    '서울역 근처 호텔을 찾고 있어요.',
    'KTX 좌석을 예약했습니다.',
    '제주도에서 흑돼지를 먹었어요.',
    '도쿄행 비행기가 지연됐습니다.',
  ],
}
const KO_FACTS: [string, string][] = [
  [
    'ko-fact-db',
    '데이터베이스 마이그레이션은 두 단계로 하기로 결정했습니다. 먼저 컬럼을 추가하고 나중에 삭제합니다.',
  ],
  ['ko-fact-cat', '우리 고양이 이름은 나비인데 키보드 위에서 자는 걸 좋아해요.'],
  ['ko-fact-allergy', '저는 땅콩 알레르기가 있으니 식당 고를 때 조심해 주세요.'],
  ['ko-fact-release', '출시일은 사월 십일로 확정됐습니다.'],
  ['ko-fact-tool', '일정 관리는 노션으로 하기로 했어요.'],
]

const ASSISTANT_PREFIX: Record<Lang, string[]> = {
  en: ['Sure. ', 'Got it. ', 'Noted: ', '', 'Understood. '],
  zh: ['好的。', '明白。', '收到，', '', '了解。'],
  ja: ['了解です。', 'わかりました。', '承知しました。', '', ''],
  ko: ['알겠습니다. ', '네, ', '확인했어요. ', '', ''],
}

function buildSessions(
  lang: Lang,
  pools: Record<string, string[]>,
  facts: [string, string][],
  count: number,
) {
  const topics = Object.keys(pools)
  const sessions: Session[] = []
  const factQueue = [...facts]
  for (let s = 1; s <= count; s++) {
    const topic = topics[(s - 1) % topics.length] as string
    const key = `${lang}-s${s}`
    const messages: Msg[] = []
    const n = 8 + Math.floor(rand() * 5)
    for (let m = 1; m <= n; m++) {
      const role = m % 2 === 1 ? 'user' : 'assistant'
      const t = rand() < 0.8 ? topic : pick(topics)
      const pool = pools[t] as string[]
      let content = fill(pick(pool))
      if (rand() < 0.35) content += (lang === 'en' ? ' ' : '') + fill(pick(pool))
      if (role === 'assistant') content = pick(ASSISTANT_PREFIX[lang]) + content
      messages.push({ key: `${key}-m${m}`, role, content })
    }
    // facts are spread over the sessions, inserted at a random position with their own key
    if (factQueue.length > 0 && (s % 2 === 0 || factQueue.length >= count - s)) {
      const [fk, text] = factQueue.shift() as [string, string]
      messages.splice(1 + Math.floor(rand() * (messages.length - 1)), 0, {
        key: fk,
        role: 'user',
        content: text,
      })
    }
    while (s === count && factQueue.length > 0) {
      const [fk, text] = factQueue.shift() as [string, string]
      messages.push({ key: fk, role: 'user', content: text })
    }
    sessions.push({ key, language: lang, title: `${lang} ${topic} ${s}`, messages })
  }
  return sessions
}

const sessions = [
  ...buildSessions('en', EN, EN_FACTS, 10),
  ...buildSessions('zh', ZH, ZH_FACTS, 8),
  ...buildSessions('ja', JA, JA_FACTS, 8),
  ...buildSessions('ko', KO, KO_FACTS, 8),
]
const all = sessions.flatMap((s) => s.messages.map((m) => ({ ...m, language: s.language })))
const keys = new Set<string>()
for (const m of all) {
  if (keys.has(m.key)) throw new Error(`duplicate key ${m.key}`)
  keys.add(m.key)
}

const queries: Query[] = []
const id = (lang: Lang) =>
  `${lang}-${String(queries.filter((q) => q.language === lang).length + 1).padStart(3, '0')}`

// CJK verbatim substrings: relevant = every message (any language) containing the substring
const VERBATIM: Record<'zh' | 'ja' | 'ko', string[]> = {
  zh: [
    ...['猫', '雪', '锅', '库', '镜', '票', '礼', '键'],
    ...[
      '后端',
      '部署',
      '索引',
      '缓存',
      '备份',
      '东京',
      '证书',
      '通信',
      '完成',
      '回滚',
      '过敏',
      '年糕',
      '日志',
      '高铁',
    ],
    ...[
      '做后端',
      '数据库',
      '负载均',
      '编辑器',
      '负载均衡器',
      '生产环境',
      '数据库迁移',
      '全文搜索',
      '百分之五',
    ],
    ...['单元测试覆盖率', '两个进程同时写入'],
  ],
  ja: [
    ...['猫', '雪', '寝', '駅'],
    ...['京都', '移行', '遅延', 'ロック', 'テスト', '東京', '予約', '猫の'],
    ...['デプロイ', 'カタカナ', 'リリース', '新幹線', '全文検索', 'ロールバック', 'データベース'],
    ...['メモリリーク', 'コンテナが再起動', 'データベースの移行', '二段階で行う'],
  ],
  ko: [
    ...['잠', '돼', '섬', '땅'],
    ...['배포', '서버', '고양', '검색', '지연', '예약', '출장', '노션'],
    ...['데이터', '고양이', '마이그', '컨테이너', '알레르기', '리팩터링'],
    ...['데이터베이스', '마이그레이션', '메모리 누수', '스테이징 서버', '두 단계로'],
  ],
}
for (const [lang, list] of Object.entries(VERBATIM) as ['zh' | 'ja' | 'ko', string[]][]) {
  for (const q of list) {
    const relevant = all.filter((m) => m.content.includes(q)).map((m) => m.key)
    if (relevant.length === 0) continue
    queries.push({
      id: id(lang),
      language: lang,
      kind: 'verbatim',
      query: q,
      length: [...q].length,
      relevant,
    })
  }
}

// English words, identifiers and stemmed variants: relevant = messages matching the word family
const EN_Q: [Query['kind'], string, RegExp][] = [
  ['word', 'kubernetes', /\bkubernetes\b/i],
  ['word', 'nginx', /\bnginx\b/i],
  ['word', 'backups', /\bbackups?\b/i],
  ['word', 'index', /\bindex(es)?\b/i],
  ['word', 'rollback', /\brollbacks?\b/i],
  ['word', 'tokyo', /\btokyo\b/i],
  ['word', 'kyoto', /\bkyoto\b/i],
  ['word', 'terraform', /\bterraform\b/i],
  ['word', 'pgbouncer', /\bpgbouncer\b/i],
  ['word', 'visa', /\bvisas?\b/i],
  ['word', 'sushi', /\bsushi\b/i],
  ['word', 'neovim', /\bneovim\b/i],
  ['word', 'replica', /\breplicas?\b/i],
  ['word', 'certificate', /\bcertificates?\b/i],
  ['word', 'Miso', /\bmiso\b/i],
  ['identifier', 'chat-send', /\bchat-send\b/i],
  ['identifier', 'sp_new1', /\bsp_new1\b/i],
  ['identifier', 'my-app.config.ts', /my-app\.config\.ts/i],
  ['identifier', 'P2.2', /\bP2\.2\b/i],
  ['identifier', 'utils.ts', /\butils\.ts\b/i],
  ['identifier', 'src/parser.ts', /src\/parser\.ts/i],
  ['identifier', 'C++', /C\+\+/],
  ['identifier', 'GitHub Actions', /github actions/i],
  ['word', 'health check', /health check/i],
  ['word', 'connection pooling', /connection pooling/i],
  ['word', 'read replica', /read replica/i],
  ['word', 'docker image', /docker image/i],
  ['word', 'event listener', /event listener/i],
  ['word', 'regression test', /regression test/i],
  ['stem', 'deploying', /\bdeploy(s|ed|ing)?\b/i],
  ['stem', 'deployed', /\bdeploy(s|ed|ing)?\b/i],
  ['stem', 'deploy*', /\bdeploy\w*/i],
  ['stem', 'restarting', /\brestart(s|ed|ing)?\b/i],
  ['stem', 'tests', /\btest(s|ed|ing)?\b/i],
  ['stem', 'queries', /\b(query|queries)\b/i],
  ['stem', 'migrations', /\bmigrations?\b/i],
  ['stem', 'delays', /\bdelay(s|ed)?\b/i],
  ['stem', 'failing', /\bfail(s|ed|ing)?\b/i],
]
for (const [kind, q, re] of EN_Q) {
  const relevant = all.filter((m) => m.language === 'en' && re.test(m.content)).map((m) => m.key)
  if (relevant.length === 0) throw new Error(`no relevant message for ${q}`)
  queries.push({ id: id('en'), language: 'en', kind, query: q, length: q.split(/\s+/).length, relevant })
}

// natural-language questions → hand-picked fact messages
const NATURAL: [Lang, string, string[]][] = [
  ['en', 'what did we decide about the database migration?', ['en-fact-migration', 'en-fact-migration2']],
  ['en', 'which editor do I like?', ['en-fact-editor']],
  ['en', 'where is the port configured', ['en-fact-config']],
  ['en', 'what is in milestone P2.2', ['en-fact-milestone']],
  ['en', 'what language is the engine written in', ['en-fact-cpp']],
  ['en', 'why did the outage happen? root cause', ['en-fact-outage']],
  ['en', 'how much is our monthly cloud budget', ['en-fact-budget']],
  ['en', 'what is the name of my cat', ['en-fact-cat']],
  ['en', 'when is the ryokan booked', ['en-fact-kyoto']],
  ['en', 'did the TLS certificate expire', ['en-fact-outage']],
  ['zh', '我们最后怎么决定数据库迁移的？', ['zh-fact-db']],
  ['zh', '我的猫叫什么名字', ['zh-fact-cat']],
  ['zh', '我对什么过敏', ['zh-fact-allergy']],
  ['zh', '故障的原因是什么', ['zh-fact-outage']],
  ['zh', '妈妈的生日是哪天', ['zh-fact-birthday']],
  ['ja', 'データベースの移行はどうすることに決めましたか', ['ja-fact-db']],
  ['ja', '猫の名前は何ですか', ['ja-fact-cat']],
  ['ja', '私のアレルギーについて', ['ja-fact-allergy']],
  ['ja', 'リリース日はいつですか', ['ja-fact-release']],
  ['ja', 'タスク管理に何を使う', ['ja-fact-tool']],
  ['ko', '데이터베이스 마이그레이션은 어떻게 하기로 했어?', ['ko-fact-db']],
  ['ko', '고양이 이름이 뭐야', ['ko-fact-cat']],
  ['ko', '내 알레르기 뭐였지', ['ko-fact-allergy']],
  ['ko', '출시일이 언제야', ['ko-fact-release']],
  ['ko', '일정 관리는 뭘로 해?', ['ko-fact-tool']],
]
for (const [lang, q, relevant] of NATURAL) {
  for (const k of relevant) if (!keys.has(k)) throw new Error(`unknown key ${k}`)
  const length = lang === 'en' ? q.split(/\s+/).length : [...q].length
  queries.push({ id: id(lang), language: lang, kind: 'natural', query: q, length, relevant })
}

const out = {
  description:
    'Engram search retrieval-quality dataset. Generated by eval/build-dataset.ts. verbatim: relevant = every ' +
    'message containing the substring; word/identifier/stem: every English message matching the word family; ' +
    'natural: hand-picked fact messages.',
  sessions,
  queries,
}
const file = join(dirname(fileURLToPath(import.meta.url)), 'search-dataset.json')
writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`)
const count = (l: Lang) => ({
  messages: all.filter((m) => m.language === l).length,
  queries: queries.filter((q) => q.language === l).length,
})
console.log(file, {
  en: count('en'),
  zh: count('zh'),
  ja: count('ja'),
  ko: count('ko'),
  total: all.length,
  queries: queries.length,
})
