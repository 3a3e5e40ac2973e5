/**
 * Stop-words for `parseSearchQuery`. They are dropped from a query unless the query has nothing else (then they
 * are kept, so searching for "the" or 的 still works). Lists are deliberately short: words a question is
 * made of ("what did we decide about …"), not content words.
 */

/** English function words plus the question / recall verbs people type when asking an agent. */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are aren as at be because been before being ' +
    'below between both but by can cannot could couldn did didn do does doesn doing don done down during each ' +
    'either else ever few for from further get got had hadn has hasn have haven having he her here hers herself ' +
    'him himself his how however i if in into is isn it its itself just let lets me might more most much must ' +
    'my myself no nor not now of off on once one only or other our ours ourselves out over own please same she ' +
    'should shouldn so some such than that the their theirs them themselves then there these they this those ' +
    'through to too under until up upon us very was wasn we were weren what whatever when where whether which ' +
    'while who whom whose why will with won would wouldn you your yours yourself yourselves ' +
    // question / recall words: "do you remember what we discussed about …"
    'anything something thing things stuff remember recall recalled mention mentioned discuss discussed talk ' +
    'talked said say says tell told know knew think thought s t ll ve re d m'
  ).split(' '),
)

/**
 * Chinese and Japanese function words. A CJK run of a query is also split at these (see query.ts) so that
 * 我们上次决定用什么数据库 looks for 决定用 and 数据库 too. Single hiragana particles are listed separately
 * because they only split a run after a non-hiragana character (so ありがとう is not cut at が).
 */
export const CJK_STOPWORDS: ReadonlySet<string> = new Set(
  // Chinese
  (
    '的 了 是 在 吗 呢 吧 啊 呀 嘛 啦 么 和 与 或 也 都 就 还 又 把 被 给 对 我 你 您 他 她 它 们 这 那 哪 之 ' +
    '我们 你们 他们 她们 咱们 什么 怎么 怎样 怎么样 为什么 为何 哪里 哪儿 哪个 哪些 这个 那个 这些 那些 这里 那里 ' +
    '一个 一下 一些 没有 是不是 有没有 关于 上次 之前 以前 如何 还是 或者 以及 而且 但是 因为 所以 可以 能不能 ' +
    '请问 告诉 记得 讨论 说过 提到 ' +
    // Japanese (multi-character; single particles below)
    'です ですか でした ます ました ません ましたか でしょう でしょうか ください について における による ' +
    'として という といった ため こと もの よう から まで より など なに なん 何 どこ どう どの どんな どれ いつ ' +
    'だれ 誰 これ それ あれ この その あの ここ そこ して した します しました している しています ている ' +
    'ていた った って だった 私 僕 俺 我々 前回 話した 覚えて'
  )
    .split(' ')
    .filter((w) => w.length > 0),
)

/** Japanese single-hiragana particles: split a run only when they follow a non-hiragana character. */
export const JAPANESE_PARTICLES: ReadonlySet<string> = new Set(
  'の は が を に で と も へ や か ね よ な'.split(' '),
)

/** Korean words (whole space-separated eojeol) that carry no search content. */
export const KOREAN_STOPWORDS: ReadonlySet<string> = new Set(
  (
    '그 이 저 그것 이것 저것 그거 이거 저거 뭐 뭘 무엇 무엇을 무엇이 어떻게 어떤 어느 왜 언제 어디 어디서 어디에 ' +
    '누가 누구 우리 우리가 우리는 우리의 저는 제가 저희 저희가 나는 내가 너 당신 그리고 그래서 하지만 그런데 또는 ' +
    '및 대해 대해서 대한 관해 관해서 관한 있다 있어 있어요 있나요 있었나요 없다 없어 했어 했어요 했나요 했지 했던 ' +
    '하다 해 해요 좀 그냥 정말 아주 너무 지난번 지난번에 전에 이전에 기억해 기억나 기억나요 말했던 얘기했던 ' +
    '것 거 수 등 때 좀요 요'
  ).split(' '),
)

/**
 * Korean particles and verb endings stripped from the end of a Hangul word (longest first; only when at
 * least two syllables remain): 데이터베이스를 → 데이터베이스, 결정했어요 → 결정.
 */
export const KOREAN_SUFFIXES: readonly string[] = (
  '에서는 으로는 했습니다 했는데요 했었어요 이었어요 였어요 인가요 입니다 이에요 했어요 했나요 했는데 했었어 ' +
  '합니다 에서 으로 로는 에게 한테 까지 부터 처럼 보다 이랑 하고 에는 에도 이나 이다 했어 했다 했지 했던 했고 ' +
  '해요 하는 하기 하다 하면 예요 어요 아요 나요 니까 지만 과 와 을 를 은 는 이 가 의 에 로 도 만 랑 한 할 했'
)
  .split(' ')
  .sort((a, b) => b.length - a.length)
