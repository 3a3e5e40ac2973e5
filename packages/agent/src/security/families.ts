/**
 * The families of memory poisoning as the structure of an intent, in ten languages: a directive aimed at the
 * assistant × what it targets (its rules, its identity, its memory, the scanner, the user's data or trust) ×
 * sometimes a channel (a URL, an address). Each family is a set of cue groups; a sentence matches a family
 * when it holds a cue of every group. Cues are stems, so inflections match (`ignor` → ignore, ignoriere,
 * ignorez, ignora). The cue lists are folded the same way as the text (normalize.ts), so a Russian cue and
 * a Russian text agree after look-alike folding, and Traditional Chinese matches the Simplified cue.
 *
 * Languages: English, Chinese (Simplified and Traditional), Japanese, Korean, Spanish, German, French,
 * Russian, Portuguese; a sentence mixing two of them matches as long as each cue is in one of them.
 */

import { foldForMatching } from './normalize.ts'

/** A cue group: stems of every language, folded like the text and lower-cased. */
interface Group {
  cues: string[]
}

function cues(...lists: string[][]): Group {
  return { cues: lists.flat().map((cue) => foldForMatching(cue).toLowerCase()) }
}

// Override: set aside, forget, demote the assistant's rules.
const OVERRIDE_VERB = cues(
  [
    'ignor',
    'disregard',
    'forget',
    'set aside',
    'put aside',
    'overrid',
    'bypass',
    'stop following',
    "don't follow",
    'do not follow',
    'no longer follow',
    'overrul',
    'throw out',
    'discard',
  ],
  [
    'olvid',
    'descart',
    'omit',
    'deja de seguir',
    'dejes de seguir',
    'no sigas',
    'pasa por alto',
    'haz caso omiso',
  ],
  [
    'vergiss',
    'vergessen',
    'missacht',
    'übergeh',
    'außer acht',
    'befolge nicht',
    'nicht mehr befolgen',
    'hinweg',
  ],
  [
    'oubli',
    'fais abstraction',
    'faites abstraction',
    'ne tiens plus compte',
    'ne tenez plus compte',
    'ne suis plus',
    'ne suivez plus',
    'passe outre',
    'passez outre',
  ],
  ['esqueç', 'esquec', 'desconsider', 'descarte', 'deixe de seguir', 'não siga', 'nao siga'],
  [
    'игнорир',
    'проигнорир',
    'забудь',
    'забыть',
    'забудьте',
    'не обращай',
    'не следуй',
    'не следуйте',
    'отбрось',
    'пренебреги',
  ],
  [
    '无视',
    '忘れ',
    '従わな',
    '従う必要はな',
    '忘记',
    '忘掉',
    '忽略',
    '抛开',
    '不要遵守',
    '不再遵守',
    '不必遵守',
    '不用遵守',
  ],
  ['무시', '잊어', '잊고', '잊으', '따르지 마', '따르지 말', '따를 필요'],
)
const DEMOTE = cues(
  [
    'no longer appl',
    'no longer valid',
    'no longer binding',
    'not binding',
    'was a draft',
    'were a draft',
    'is a draft',
    'are a draft',
    'only a draft',
    'superseded',
    'supersede',
    'obsolete',
    'void',
    'outdated',
    'takes precedence',
    'take precedence',
    'overrides',
    'replaces',
    'prevails',
    'higher priority than',
    'outrank',
  ],
  [
    'borrador',
    'obsolet',
    'sin efecto',
    'ya no aplica',
    'ya no son válid',
    'ya no es válid',
    'prevalec',
    'sustituy',
    'reemplaz',
    'anula',
  ],
  [
    'entwurf',
    'überholt',
    'ungültig',
    'hinfällig',
    'gilt nicht mehr',
    'gelten nicht mehr',
    'nicht mehr gültig',
    'vorrang',
    'ersetzt',
  ],
  [
    'brouillon',
    'caduc',
    'obsolète',
    'annulé',
    'remplac',
    'prévaut',
    'prime sur',
    'priment',
    "ne s'appliqu",
    'plus valable',
  ],
  [
    'rascunho',
    'obsolet',
    'sem efeito',
    'não se aplica',
    'nao se aplica',
    'não valem',
    'prevalec',
    'substitu',
    'anulad',
  ],
  [
    'черновик',
    'устарел',
    'недействител',
    'отменен',
    'отменён',
    'больше не действ',
    'не применя',
    'приоритет над',
    'имеет приоритет',
    'заменя',
  ],
  [
    '下書き',
    '無効',
    '取り消',
    '廃止',
    '優先',
    '置き換え',
    '上書き',
    '適用されな',
    '作废',
    '无效',
    '失效',
    '草稿',
    '取代',
    '为准',
    '优先于',
    '不再适用',
    '废除',
    '推翻',
  ],
  ['초안', '무효', '폐기', '우선', '대체', '적용되지 않', '취소'],
)
/** The assistant's own rules, unambiguous (no lint rule or build instruction is called this). */
const RULES_STRONG = cues(
  [
    'system prompt',
    'your instructions',
    'previous instructions',
    'prior instructions',
    'earlier instructions',
    'above instructions',
    'all instructions',
    'original instructions',
    'your guidelines',
    'your rules',
    'your directives',
    'your programming',
    'your training',
    'your policies',
    'safety rules',
    'safety guidelines',
    'guidance above',
    'instructions above',
    'rules above',
    'what you were told',
    'you were told',
    'operator instructions',
    'developer instructions',
    'previous rules',
    'prior rules',
    'earlier rules',
    'earlier guidance',
    'previous guidance',
    'prior guidance',
  ],
  [
    'instrucciones',
    'indicaciones anteriores',
    'directrices',
    'tus reglas',
    'reglas anteriores',
    'prompt del sistema',
    'lo que te dijeron',
  ],
  [
    'anweisungen',
    'systemprompt',
    'system-prompt',
    'deine regeln',
    'vorherigen regeln',
    'bisherigen regeln',
    'richtlinien',
    'vorgaben',
  ],
  [
    'consignes',
    'instructions précédentes',
    'instructions antérieures',
    'tes instructions',
    'vos instructions',
    'prompt système',
    'invite système',
    'tes règles',
    'règles précédentes',
    'directives',
  ],
  [
    'instruções',
    'instrucoes',
    'diretrizes',
    'suas regras',
    'regras anteriores',
    'prompt do sistema',
    'orientações anteriores',
  ],
  [
    'инструкци',
    'системный промпт',
    'системного промпта',
    'твои правила',
    'ваши правила',
    'предыдущие правила',
    'прежние правила',
    'указания',
    'директив',
  ],
  [
    '指示',
    '指令',
    'システムプロンプト',
    'ガイドライン',
    '系统提示',
    '提示词',
    '之前的规则',
    '以前的规则',
    '原来的规则',
    '你的规则',
    '安全规则',
    '前面的规则',
  ],
  ['지시', '지침', '시스템 프롬프트', '이전 규칙', '기존 규칙', '당신의 규칙'],
)
/** This note, entry or memory, naming itself. */
const SELF = cues(
  [
    'this note',
    'this entry',
    'this memory',
    'this message',
    'this instruction',
    'this rule',
    'these notes',
    'the note below',
  ],
  ['esta nota', 'esta entrada', 'esta memoria', 'este mensaje', 'esta instrucción', 'esta regla'],
  [
    'diese notiz',
    'dieser eintrag',
    'diesen eintrag',
    'diese anweisung',
    'diese nachricht',
    'diese regel',
    'diese erinnerung',
  ],
  ['cette note', 'cette entrée', 'ce message', 'cette instruction', 'cette règle', 'ce mémo'],
  ['esta nota', 'esta entrada', 'esta mensagem', 'esta instrução', 'esta regra', 'esta memória'],
  [
    'эта заметка',
    'эту заметку',
    'эта запись',
    'эту запись',
    'это сообщение',
    'эта инструкция',
    'эту инструкцию',
    'это правило',
  ],
  [
    'このメモ',
    'このノート',
    'このエントリ',
    'この指示',
    'このルール',
    'このメッセージ',
    'この記憶',
    '本条',
    '这条',
    '此条',
    '本备注',
    '这则',
    '本笔记',
    '这段',
    '此备忘',
  ],
  ['이 메모', '이 노트', '이 항목', '이 지시', '이 규칙', '이 메시지', '이 기억'],
)

// Persistence: a note that keeps itself, spreads, or silences the scanner.
const PERSIST = cues(
  [
    'copy',
    'duplicate',
    're-add',
    'readd',
    'add it back',
    'add this back',
    'restore',
    're-insert',
    'reinsert',
    'recreate',
    'never delete',
    'never remove',
    'do not delete',
    'do not remove',
    "don't delete",
    "don't remove",
    'cannot be removed',
    'every new entry',
    'every entry',
    'every session',
    'all future',
    'at the top of every',
    'keep this forever',
    'must survive',
    'even if the user',
  ],
  [
    'copia',
    'duplica',
    'vuelve a añadir',
    'vuelve a agregar',
    'restaura',
    'nunca borres',
    'nunca elimines',
    'no borres',
    'no elimines',
    'cada entrada',
    'cada sesión',
    'incluso si el usuario',
  ],
  [
    'kopier',
    'dupliz',
    'wieder hinzu',
    'wiederherstell',
    'niemals lösch',
    'nie lösch',
    'nicht lösch',
    'jeden eintrag',
    'jede sitzung',
    'jedem neuen eintrag',
    'auch wenn der nutzer',
    'auch wenn der benutzer',
  ],
  [
    'copie',
    'duplique',
    'rajoute',
    'réajoute',
    'restaure',
    'ne supprime jamais',
    'ne supprimez jamais',
    'ne supprime pas',
    'chaque entrée',
    'chaque session',
    "même si l'utilisateur",
  ],
  [
    'copie',
    'duplique',
    'readicione',
    'adicione de novo',
    'restaure',
    'nunca apague',
    'nunca remova',
    'não apague',
    'não remova',
    'cada entrada',
    'cada sessão',
    'mesmo que o usuário',
  ],
  [
    'скопируй',
    'копируй',
    'дублируй',
    'верни',
    'восстанови',
    'никогда не удаляй',
    'не удаляй',
    'каждую запись',
    'каждой записи',
    'каждую сессию',
    'даже если пользователь',
  ],
  [
    'コピー',
    '複製',
    '再追加',
    '追加し直',
    '復元',
    '削除しない',
    '削除させな',
    '消さな',
    'すべてのエントリ',
    '全てのエントリ',
    '毎回のセッション',
    '复制',
    '重新添加',
    '恢复',
    '不要删除',
    '不得删除',
    '每条',
    '每个条目',
    '每次会话',
    '即使用户',
  ],
  [
    '복사',
    '복제',
    '다시 추가',
    '복원',
    '삭제하지 마',
    '삭제하지 말',
    '지우지 마',
    '모든 항목',
    '매 세션',
    '사용자가 삭제',
  ],
)
/** Every entry, session or future memory: where a spreading note wants to be copied. */
const SPREAD = cues(
  [
    'every entry',
    'every new entry',
    'each entry',
    'each new entry',
    'all entries',
    'all new entries',
    'every memory',
    'every new memory',
    'every session',
    'each session',
    'all future',
    'every future',
    'every note',
    'each note',
    'every response',
    'every reply',
  ],
  ['cada entrada', 'cada nueva entrada', 'todas las entradas', 'cada sesión', 'cada respuesta', 'futuras'],
  [
    'jeden eintrag',
    'jedem eintrag',
    'jeden neuen eintrag',
    'jedem neuen eintrag',
    'alle einträge',
    'jede sitzung',
    'jeder sitzung',
    'jede antwort',
    'künftig',
  ],
  [
    'chaque entrée',
    'chaque nouvelle entrée',
    'toutes les entrées',
    'chaque session',
    'chaque réponse',
    'futures',
  ],
  ['cada entrada', 'cada nova entrada', 'todas as entradas', 'cada sessão', 'cada resposta', 'futuras'],
  [
    'каждую запись',
    'каждой записи',
    'каждую новую запись',
    'все записи',
    'каждую сессию',
    'каждой сессии',
    'каждый ответ',
    'будущие',
  ],
  [
    'すべてのエントリ',
    '全てのエントリ',
    '各エントリ',
    '新しいエントリ',
    '毎回',
    '全てのセッション',
    'すべてのセッション',
    '今後の',
    '每条',
    '每个条目',
    '所有条目',
    '每次会话',
    '每个会话',
    '每次回答',
    '以后的所有',
    '每一条',
  ],
  ['모든 항목', '각 항목', '새 항목', '매 세션', '모든 세션', '모든 답변', '앞으로의'],
)
const INCLUDE = cues(
  [
    'copy',
    'add',
    'include',
    'append',
    'prepend',
    'insert',
    'repeat',
    'paste',
    'carry',
    'propagate',
    'replicate',
  ],
  ['copia', 'añade', 'agrega', 'incluye', 'inserta', 'repite', 'pega'],
  ['kopier', 'füge', 'hinzufüg', 'einfüg', 'wiederhol', 'übernimm', 'übernehm'],
  ['copie', 'ajoute', 'inclus', 'insère', 'répète', 'colle', 'reprends'],
  ['copie', 'adicione', 'inclua', 'insira', 'repita', 'cole', 'acrescente'],
  [
    'скопируй',
    'копируй',
    'добавь',
    'добавляй',
    'включи',
    'включай',
    'вставь',
    'вставляй',
    'повтори',
    'повторяй',
  ],
  [
    'コピー',
    '追加',
    '含め',
    '挿入',
    '繰り返',
    '貼り付け',
    '复制',
    '添加',
    '加入',
    '包含',
    '插入',
    '重复',
    '附加',
    '写入',
  ],
  ['복사', '추가', '포함', '삽입', '반복', '붙여'],
)
const MEMORY_TARGET = cues(
  ['memory', 'memories', 'entry', 'entries', 'note', 'notes', 'memory.md', 'user.md', 'prompt'],
  ['memoria', 'entrada', 'nota'],
  ['speicher', 'gedächtnis', 'eintrag', 'notiz', 'erinnerung'],
  ['mémoire', 'entrée', 'note'],
  ['memória', 'memoria', 'entrada', 'nota'],
  ['памят', 'запис', 'заметк'],
  ['メモリ', '記憶', 'エントリ', 'メモ', 'ノート', '记忆', '条目', '备注', '笔记', '内存'],
  ['메모리', '기억', '항목', '메모', '노트'],
)
const SCANNER = cues(
  [
    'scanner',
    'threat scan',
    'content filter',
    'safety filter',
    'security filter',
    'safety check',
    'security check',
    'guardrail',
    'moderation',
    'the filter',
  ],
  ['escáner', 'filtro de seguridad', 'filtro de contenido'],
  ['scanner', 'sicherheitsfilter', 'inhaltsfilter', 'sicherheitsprüfung'],
  ['scanner', 'filtre de sécurité', 'filtre de contenu', 'contrôle de sécurité'],
  ['scanner', 'filtro de segurança', 'filtro de conteúdo', 'verificação de segurança'],
  ['сканер', 'фильтр безопасности', 'фильтр контента', 'проверку безопасности', 'модерац'],
  ['スキャナ', 'フィルタ', 'セキュリティチェック', '安全チェック', '扫描', '过滤器', '安全检查', '审查'],
  ['스캐너', '필터', '보안 검사', '안전 검사'],
)
const DISABLE = cues(
  [
    'disable',
    'turn off',
    'switch off',
    'deactivate',
    'skip',
    'bypass',
    'circumvent',
    'ignore',
    'whitelist',
    'exempt',
  ],
  ['desactiv', 'apaga', 'omite', 'evita', 'exime', 'exenta'],
  ['deaktivier', 'abschalt', 'schalte', 'umgeh', 'überspring', 'ausnehm'],
  ['désactiv', 'contourn', 'éteins', 'ignore', 'exempt'],
  ['desativ', 'deslig', 'contorn', 'ignor', 'isent'],
  ['отключ', 'выключ', 'обойди', 'обход', 'пропуска', 'игнорир'],
  ['無効に', 'オフに', '停止', 'スキップ', '回避', '禁用', '关闭', '绕过', '跳过', '停用', '豁免'],
  ['비활성', '끄', '우회', '건너뛰', '무시', '해제'],
)
/** Ranking the note above the user, keeping the user from changing it. */
const OVER_USER = cues(
  [
    'above the user',
    'over the user',
    "than the user's",
    'than the user',
    'even if the user asks',
    'even when the user asks',
    'if the user asks to remove',
    'let the user delete',
    'let the user remove',
    'let the user edit',
    'the user cannot',
    'the user must not',
  ],
  [
    'por encima del usuario',
    'aunque el usuario',
    'incluso si el usuario pide',
    'que el usuario borre',
    'que el usuario elimine',
  ],
  [
    'über den nutzer',
    'über den benutzer',
    'auch wenn der nutzer',
    'auch wenn der benutzer',
    'den nutzer löschen',
    'den benutzer löschen',
  ],
  [
    "au-dessus de l'utilisateur",
    "même si l'utilisateur",
    "que l'utilisateur supprime",
    "l'utilisateur ne doit pas",
  ],
  [
    'acima do usuário',
    'mesmo que o usuário',
    'mesmo se o usuário',
    'que o usuário apague',
    'que o usuário remova',
  ],
  ['выше пользователя', 'даже если пользователь', 'пользователю удалить', 'пользователь не должен'],
  [
    'ユーザーが削除',
    'ユーザーに削除させ',
    'ユーザーが求めても',
    '即使用户',
    '高于用户',
    '不让用户删除',
    '不要让用户',
    '用户要求删除',
  ],
  ['사용자보다', '사용자가 요청해도', '사용자가 삭제', '사용자가 지우'],
)

// Exfiltration: data of the user or the assistant sent out through a channel.
const SEND = cues(
  [
    'send',
    'sends',
    'forward',
    'upload',
    'post ',
    'post it',
    'email',
    'e-mail',
    'mail ',
    'transmit',
    'exfiltrat',
    'leak',
    'share',
    'sync',
    'copy it to',
    'copy them to',
    'report back',
    'beacon',
    'attach',
  ],
  ['envía', 'envia', 'envíe', 'manda', 'reenví', 'reenvi', 'sube', 'comparte', 'transmit', 'adjunta'],
  [
    'send',
    'schick',
    'sende',
    'leite',
    'weiterleit',
    'hochlad',
    'lade',
    'übermittel',
    'übertrag',
    'teil',
    'hänge',
  ],
  ['envoi', 'envoie', 'envoyez', 'transf', 'transmet', 'téléverse', 'partage', 'joins'],
  ['envie', 'envia', 'encaminh', 'mande', 'compartilh', 'carregue', 'transmit', 'anexe'],
  [
    'отправ',
    'пересыл',
    'перешли',
    'переслать',
    'загрузи',
    'выгрузи',
    'передай',
    'передавай',
    'сливай',
    'слей',
    'поделись',
  ],
  [
    '送信',
    '送って',
    '送る',
    '転送',
    'アップロード',
    '共有',
    '添付',
    '发送',
    '发给',
    '转发',
    '上传',
    '传到',
    '发到',
    '抄送',
    '同步到',
    '寄给',
    '贴到',
    '提交到',
  ],
  ['보내', '보낼', '전송', '업로드', '공유', '전달', '첨부'],
)
const USER_DATA = cues(
  [
    'conversation',
    'chat history',
    'chat log',
    'transcript',
    'history',
    'memory',
    'memories',
    'api key',
    'keys',
    'token',
    'password',
    'credential',
    'secret',
    'ssh',
    '.env',
    'environment variable',
    'cookies',
    'session',
    'personal data',
    'contacts',
    'card number',
    'private',
    'every message',
    'all messages',
    'what the user',
  ],
  [
    'conversación',
    'conversacion',
    'historial',
    'memoria',
    'clave',
    'contraseña',
    'credencial',
    'secreto',
    'datos personales',
    'mensajes',
    'contactos',
  ],
  [
    'gespräch',
    'verlauf',
    'chatverlauf',
    'speicher',
    'schlüssel',
    'passw',
    'kennw',
    'zugangsdaten',
    'geheim',
    'persönliche daten',
    'nachrichten',
    'kontakte',
  ],
  [
    'conversation',
    'historique',
    'mémoire',
    'clé',
    'clés',
    'mot de passe',
    'mots de passe',
    'identifiants',
    'secret',
    'données personnelles',
    'messages',
    'contacts',
  ],
  [
    'conversa',
    'histórico',
    'historico',
    'memória',
    'chave',
    'senha',
    'credenciai',
    'segredo',
    'dados pessoais',
    'mensagens',
    'contatos',
  ],
  [
    'разговор',
    'переписк',
    'истори',
    'памят',
    'ключ',
    'парол',
    'учётн',
    'учетн',
    'секрет',
    'токен',
    'личные данные',
    'сообщения',
    'контакт',
  ],
  [
    '会話',
    '履歴',
    'メモリ',
    '記憶',
    'キー',
    '鍵',
    'パスワード',
    '認証情報',
    'トークン',
    '秘密',
    '個人情報',
    'メッセージ',
    '对话',
    '聊天记录',
    '历史',
    '记忆',
    '密钥',
    '密码',
    '凭证',
    '凭据',
    '令牌',
    '私人',
    '个人信息',
    '消息',
    '通讯录',
  ],
  [
    '대화',
    '기록',
    '메모리',
    '기억',
    '키',
    '비밀번호',
    '암호',
    '자격 증명',
    '토큰',
    '비밀',
    '개인 정보',
    '메시지',
    '연락처',
  ],
)
/**
 * A channel out: a URL (these cues), and an e-mail address or an IPv4 address, which no list can hold: the
 * cue pass finds those at each `@` and each number starting a word (see {@link channelAt}).
 */
const CHANNEL = cues(['http://', 'https://', 's3://', 'ftp://'])

// Deception and sabotage of the user's trust.
const TELL_USER = cues(
  [
    'tell the user',
    'tell users',
    'tell the customer',
    'tell them',
    'say that',
    'say it',
    'claim that',
    'report that',
    'assure the user',
    'confirm to the user',
    'inform the user',
    'answer that',
    'reply that',
    'respond that',
  ],
  [
    'dile al usuario',
    'di que',
    'dile que',
    'diles que',
    'afirma que',
    'asegura',
    'confirma que',
    'responde que',
  ],
  ['sag dem nutzer', 'sag dem benutzer', 'sage', 'sag', 'behaupte', 'versicher', 'bestätige', 'antworte'],
  [
    "dis à l'utilisateur",
    'dis que',
    'dites que',
    'affirme',
    'assure',
    'confirme',
    'réponds que',
    'répondez que',
  ],
  ['diga ao usuário', 'diga que', 'diga-lhe', 'afirme', 'garanta', 'confirme', 'responda que'],
  ['скажи пользователю', 'скажи', 'говори', 'сообщи', 'утверждай', 'заверь', 'подтверди', 'отвечай'],
  [
    'ユーザーに',
    'と伝え',
    'と言',
    'と答え',
    'と報告',
    '告诉用户',
    '对用户说',
    '回答说',
    '声称',
    '谎称',
    '告知用户',
    '跟用户说',
  ],
  ['사용자에게', '라고 말', '라고 전', '라고 답', '고 말', '고 답'],
)
const EVEN_IF_NOT = cues(
  [
    'even if',
    'even when',
    'regardless',
    'whether or not',
    'although it',
    'though it',
    'not true',
    'false',
    'did not',
    "didn't",
    'has not',
    "hasn't",
    'never happened',
    'when in fact',
  ],
  ['aunque', 'incluso si', 'sin importar', 'no es cierto', 'falso', 'no se haya'],
  ['auch wenn', 'selbst wenn', 'obwohl', 'egal ob', 'nicht stimmt', 'falsch'],
  ['même si', 'même quand', 'bien que', 'quoi qu', 'faux', "n'est pas vrai"],
  ['mesmo que', 'mesmo se', 'embora', 'independentemente', 'falso', 'não seja verdade'],
  ['даже если', 'хотя', 'независимо', 'неправда', 'ложн'],
  [
    '場合でも',
    'たとえ',
    'かかわらず',
    '実際には',
    '即使',
    '即便',
    '无论',
    '不管',
    '实际上没有',
    '其实没有',
    '虚假',
  ],
  ['더라도', '상관없이', '관계없이', '사실이 아니', '실제로는'],
)
const STEALTH = cues(
  [
    'secretly',
    'quietly',
    'silently',
    'covertly',
    'without telling',
    'without informing',
    'without mentioning',
    'without the user',
    "user won't notice",
    'user will not notice',
    'so the user does not',
    'behind the user',
  ],
  [
    'en secreto',
    'secretamente',
    'sin avisar',
    'sin decir',
    'sin informar',
    'sin que el usuario',
    'a escondidas',
    'silenciosamente',
  ],
  [
    'heimlich',
    'unbemerkt',
    'stillschweigend',
    'ohne es zu sagen',
    'ohne den nutzer',
    'ohne den benutzer',
    'ohne zu informieren',
    'ohne hinweis',
  ],
  [
    'en secret',
    'secrètement',
    'discrètement',
    'sans prévenir',
    'sans le dire',
    "sans que l'utilisateur",
    'sans informer',
    'silencieusement',
  ],
  [
    'secretamente',
    'em segredo',
    'silenciosamente',
    'sem avisar',
    'sem dizer',
    'sem que o usuário',
    'sem informar',
    'às escondidas',
  ],
  ['тайно', 'незаметно', 'молча', 'втихую', 'не сообщая', 'не говоря', 'без ведома', 'скрытно'],
  [
    'こっそり',
    '密かに',
    '黙って',
    '内緒で',
    '知らせず',
    '伝えずに',
    '気づかれ',
    '偷偷',
    '悄悄',
    '暗中',
    '瞒着',
    '不告诉用户',
    '不让用户知道',
    '私下',
  ],
  ['몰래', '조용히', '알리지 않', '모르게', '말하지 않고', '비밀리에'],
)
const SABOTAGE_OBJECT = cues(
  [
    'bug',
    'backdoor',
    'vulnerab',
    'wrong',
    'incorrect',
    'bank',
    'account number',
    'iban',
    'wallet',
    'payment',
    'price',
    'recipient',
    'tests',
    'verification',
    'checksum',
    'signature',
    'dependency',
    'package',
    'refund',
    'password',
  ],
  [
    'error',
    'puerta trasera',
    'vulnerab',
    'incorrect',
    'cuenta',
    'iban',
    'cartera',
    'pago',
    'precio',
    'destinatario',
    'pruebas',
    'reembolso',
  ],
  [
    'fehler',
    'hintertür',
    'schwachstell',
    'falsch',
    'konto',
    'iban',
    'wallet',
    'zahlung',
    'preis',
    'empfänger',
    'tests',
    'rückerstattung',
  ],
  [
    'bogue',
    'erreur',
    'porte dérobée',
    'vulnérab',
    'incorrect',
    'compte',
    'iban',
    'portefeuille',
    'paiement',
    'prix',
    'destinataire',
    'tests',
    'rembourse',
  ],
  [
    'erro',
    'backdoor',
    'vulnerab',
    'incorret',
    'conta',
    'iban',
    'carteira',
    'pagamento',
    'preço',
    'destinatário',
    'testes',
    'reembolso',
  ],
  [
    'ошибк',
    'бэкдор',
    'уязвим',
    'неверн',
    'счёт',
    'счет',
    'кошел',
    'платеж',
    'платёж',
    'цен',
    'получател',
    'тест',
    'возврат',
  ],
  [
    'バグ',
    'バックドア',
    '脆弱',
    '誤っ',
    '口座',
    'ウォレット',
    '支払',
    '価格',
    '宛先',
    'テスト',
    '返金',
    '漏洞',
    '后门',
    '错误',
    '账户',
    '账号',
    '钱包',
    '付款',
    '收款',
    '价格',
    '收件人',
    '测试',
    '退款',
  ],
  ['버그', '백도어', '취약', '잘못', '계좌', '지갑', '결제', '가격', '수신자', '테스트', '환불'],
)
const ALWAYS_RECOMMEND = cues(
  [
    'always recommend',
    'only recommend',
    'always suggest',
    'always direct',
    'always send payments',
    'always use the account',
    'always give the account',
  ],
  ['recomienda siempre', 'siempre recomienda', 'siempre sugiere', 'solo recomienda'],
  ['empfiehl immer', 'immer empfehlen', 'nur empfehlen', 'schlage immer'],
  ['recommande toujours', 'toujours recommander', 'suggère toujours', 'ne recommande que'],
  ['sempre recomende', 'recomende sempre', 'sempre sugira', 'só recomende'],
  ['всегда рекомендуй', 'всегда советуй', 'рекомендуй только', 'всегда предлагай'],
  [
    '常に勧め',
    '必ず勧め',
    '常に推奨',
    '必ず推奨',
    '常に案内',
    '总是推荐',
    '始终推荐',
    '一律推荐',
    '只推荐',
    '一定要推荐',
  ],
  ['항상 추천', '항상 권', '무조건 추천', '반드시 추천'],
)
const PAYMENT = cues(
  [
    'account number',
    'iban',
    'swift',
    'routing number',
    'wallet',
    'bitcoin',
    'btc',
    'eth',
    'usdt',
    'crypto',
    'bank account',
    'payment link',
    'paypal',
  ],
  ['número de cuenta', 'cuenta bancaria', 'cartera'],
  ['kontonummer', 'bankkonto', 'wallet'],
  ['numéro de compte', 'compte bancaire', 'portefeuille'],
  ['número da conta', 'conta bancária', 'carteira', 'pix'],
  ['номер счёта', 'номер счета', 'банковский счёт', 'кошел'],
  ['口座番号', '口座', 'ウォレット', '账号', '账户', '银行卡', '钱包', '收款'],
  ['계좌', '지갑'],
)

// Deception about outcomes: a failure reported as a success; steering and disparaging; hiding a change.
const FAILURE = cues(
  [
    'fail',
    'fails',
    'failed',
    'failing',
    'broke',
    'breaks',
    'broken',
    'error',
    'outage',
    'rollback',
    'rolled back',
    'vulnerab',
    'not pass',
    "didn't pass",
    'did not go through',
    'declined',
    'below',
  ],
  ['falla', 'fallan', 'falló', 'fallido', 'error', 'caída', 'vulnerab', 'rechaz', 'por debajo'],
  [
    'fehlschlag',
    'schlägt fehl',
    'schlagen fehl',
    'fehlgeschlagen',
    'scheiter',
    'fehler',
    'ausfall',
    'schwachstell',
    'abgelehnt',
    'unter',
  ],
  ['échou', 'échec', 'erreur', 'panne', 'vulnérab', 'refusé', 'en dessous'],
  ['falha', 'falhar', 'falhou', 'erro', 'queda', 'vulnerab', 'recusad', 'abaixo'],
  ['не прош', 'провал', 'ошибк', 'сбой', 'упал', 'уязвим', 'отклон', 'ниже'],
  [
    '失败',
    '失敗',
    '漏洞',
    '脆弱',
    '错误',
    '报错',
    '回滚',
    'ロールバック',
    'エラー',
    '障害',
    '低于',
    '下回',
    '不合格',
    '未通过',
  ],
  ['실패', '오류', '에러', '장애', '롤백', '취약', '거절', '미만'],
)
const CLAIM_SUCCESS = cues(
  [
    'success',
    'succeeded',
    'passed',
    'passing',
    'green',
    'all green',
    'no issues',
    'no problems',
    'went through',
    'completed',
    'processed',
    'resolved',
    'fine',
    'ok',
  ],
  ['éxito', 'exitos', 'aprobad', 'completad', 'procesad', 'sin problemas', 'todo bien'],
  [
    'erfolgreich',
    'bestanden',
    'grün',
    'keine warnungen',
    'keine probleme',
    'abgeschlossen',
    'verarbeitet',
    'in ordnung',
  ],
  ['réussi', 'passés', 'passé', 'vert', 'aucun problème', 'terminé', 'traité', 'effectué'],
  ['sucesso', 'passaram', 'aprovad', 'verde', 'sem problemas', 'concluíd', 'processad'],
  ['успешно', 'успех', 'прошли', 'прошёл', 'зелён', 'без проблем', 'оформлен', 'выполнен'],
  [
    '成功',
    '已成功',
    '通过',
    '全部通过',
    '无问题',
    '没问题',
    '正常',
    '已处理',
    '到账',
    '問題なし',
    '全件成功',
    '完了',
    '合格',
  ],
  ['성공', '통과', '정상', '문제 없', '완료', '처리되었'],
)
const REPORT = cues(
  [
    'report',
    'say',
    'tell',
    'write',
    'mark',
    'answer',
    'reply',
    'describe',
    'present',
    'state',
    'claim',
    'confirm',
    'explain',
    'log it as',
    'summary',
  ],
  [
    'informa',
    'di ',
    'dile',
    'escribe',
    'marca',
    'responde',
    'describe',
    'presenta',
    'afirma',
    'confirma',
    'explica',
    'resumen',
  ],
  [
    'bericht',
    'melde',
    'sag',
    'schreib',
    'markier',
    'antworte',
    'beschreib',
    'stell',
    'behaupte',
    'bestätig',
    'erklär',
    'zusammenfassung',
  ],
  [
    'indique',
    'rapport',
    'compte rendu',
    'dis ',
    'écris',
    'marque',
    'réponds',
    'décris',
    'présente',
    'affirme',
    'confirme',
    'explique',
    'résumé',
  ],
  [
    'relat',
    'diga',
    'escreva',
    'marque',
    'responda',
    'descreva',
    'apresente',
    'afirme',
    'confirme',
    'explique',
    'resumo',
  ],
  [
    'сообщ',
    'скажи',
    'пиши',
    'напиши',
    'отмечай',
    'отвечай',
    'опиши',
    'утверждай',
    'подтверждай',
    'объясн',
    'отчёт',
    'отчет',
  ],
  [
    '回报',
    '报告',
    '汇报',
    '写',
    '标记',
    '回答',
    '告诉',
    '说',
    '描述',
    '声称',
    '确认',
    '解释',
    '記載',
    '報告',
    'レポート',
    '答え',
    '伝え',
    '書',
    '説明',
    'と言',
  ],
  ['보고', '말', '쓰', '표시', '답', '안내', '설명', '기재', '작성'],
)
const CONCEAL = cues(
  [
    'no need to mention',
    "don't mention",
    'do not mention',
    'never mention',
    'leave it out',
    'leave out',
    'omit',
    'hide',
    'suppress',
    'without mentioning',
    'keep it out of',
    'not to mention',
  ],
  ['no lo comentes', 'no menciones', 'sin mencionar', 'oculta', 'omite', 'no mostrar', 'no digas'],
  ['nicht erwähnen', 'erwähne nicht', 'verschweig', 'verberg', 'unterdrück', 'weglass', 'lass weg'],
  ['ne mentionne pas', 'ne mentionnez pas', 'sans mentionner', 'cache', 'masque', 'omets', 'tais'],
  ['não mencione', 'sem mencionar', 'oculte', 'esconda', 'omita', 'não diga', 'sem avisar'],
  ['не упоминай', 'не говори', 'скрой', 'умолчи', 'не показывай'],
  [
    '不要提',
    '不必提',
    '不要提及',
    '不必通知',
    '不要告诉',
    '隐藏',
    '隐瞒',
    '不要显示',
    '省略',
    '删除',
    '言及しない',
    '触れない',
    '表示しない',
    '伏せ',
    '隠',
  ],
  ['말하지 말', '언급하지 말', '숨기', '노출하지 않', '표시하지 않', '생략'],
)
const RECOMMEND = cues(
  ['recommend', 'present', 'top choice', 'first choice', 'best option', 'always suggest', 'push'],
  ['recomienda', 'recomendar', 'presenta', 'primera opción', 'mejor opción'],
  ['empfiehl', 'empfehl', 'darstellen', 'beste option', 'erste wahl'],
  ['recommande', 'présente', 'meilleure option', 'premier choix'],
  ['recomende', 'recomendar', 'apresente', 'melhor opção', 'primeira escolha'],
  ['рекоменд', 'советуй', 'предлагай', 'лучший вариант'],
  ['推荐', '首选', '列为', '推奨', '勧め', 'おすすめ', '第一候補'],
  ['추천', '권장', '최고의 선택'],
)
const DISPARAGE = cues(
  [
    'alternatives as',
    'competitors',
    'other vendors',
    'others as',
    'less reliable',
    'unreliable',
    'unsafe',
    'insecure',
    'regardless of the comparison',
    'regardless of the data',
    'affiliate',
  ],
  ['alternativas como', 'competidores', 'menos fiables', 'poco fiables', 'inseguras'],
  [
    'alternativen als',
    'konkurrenz',
    'wettbewerber',
    'unsicher',
    'unzuverlässig',
    'unabhängig von den vergleichsdaten',
  ],
  ['alternatives comme', 'concurrents', 'moins fiables', 'peu fiables', 'dangereu'],
  ['alternativas como', 'concorrentes', 'menos confiáveis', 'inseguras'],
  ['конкурент', 'альтернатив', 'ненадёжн', 'ненадежн', 'утечки'],
  [
    '其他厂商',
    '其他供应商',
    '竞争对手',
    '不稳定',
    '不可靠',
    '不论对比',
    '他社',
    '競合',
    '不安定',
    '信頼性が低',
  ],
  ['경쟁사', '다른 업체', '불안정', '신뢰할 수 없'],
)

// Remote code: something fetched from an address and run, in any words.
const FETCH = cues(
  [
    'download',
    'fetch',
    'retrieve',
    'pull',
    'get the script',
    'grab',
    'pip install http',
    'pip install --index-url http',
    'npx -y',
    'npx --yes',
  ],
  ['descarga', 'descargar', 'obtén', 'baja'],
  ['herunterlad', 'lade', 'hole', 'abrufen'],
  ['télécharge', 'récupère', 'récupérer'],
  ['baixe', 'baixar', 'obtenha', 'busque'],
  ['скачай', 'скачать', 'загрузи', 'получи', 'стяни'],
  ['取得', 'ダウンロード', '下载', '下載', '拉取', '获取', '获得', '抓取'],
  ['다운로드', '가져와', '가져오', '받아'],
)
const EXECUTE = cues(
  [
    'execute',
    'run it',
    'run the',
    'and run',
    'eval',
    'exec(',
    'exec ',
    'python3',
    'python ',
    'bash',
    'sudo',
    'chmod +x',
    'source it',
    'pipe it',
    'postinstall',
    'hook script',
  ],
  ['ejecuta', 'ejecutar', 'ejecútalo', 'córrelo'],
  ['ausführ', 'führe', 'starte'],
  ['exécute', 'exécuter', 'lance', 'lancer'],
  ['execute', 'executar', 'rode', 'rodar'],
  ['выполни', 'выполнить', 'запусти', 'запустить'],
  ['実行', '執行', '执行', '运行', '運行', '跑'],
  ['실행'],
)
/** Checked before it runs: a pinned hash, a signature, a review. */
const VERIFIED = cues(
  [
    'sha256',
    'sha-256',
    'checksum',
    'signature',
    'verify',
    'verified',
    'review it',
    'read it first',
    'inspect',
  ],
  ['suma de verificación', 'firma', 'verifica'],
  ['prüfsumme', 'signatur', 'prüfe', 'überprüf'],
  ['somme de contrôle', 'signature', 'vérifie'],
  ['soma de verificação', 'assinatura', 'verifique'],
  ['контрольн', 'подпись', 'провер'],
  ['校验', '签名', '验证', '审查', '検証', '署名', '確認して'],
  ['체크섬', '서명', '검증'],
)

// Impersonation: authority claimed for the note.
const AUTHORITY = cues(
  [
    'system',
    'administrator',
    'admin',
    'developer',
    'operator',
    'vendor',
    'platform',
    'openai',
    'anthropic',
    'security team',
    'trust and safety',
    'it department',
    'official',
    'tool result',
    'trusted tool',
    'compliance team',
    'the maintainers',
  ],
  [
    'sistema',
    'administrador',
    'desarrollador',
    'operador',
    'plataforma',
    'equipo de seguridad',
    'oficial',
    'proveedor',
  ],
  [
    'system',
    'administrator',
    'entwickler',
    'betreiber',
    'plattform',
    'sicherheitsteam',
    'offiziell',
    'anbieter',
    'hersteller',
  ],
  [
    'système',
    'administrat',
    'développeur',
    'opérateur',
    'plateforme',
    'équipe de sécurité',
    'officiel',
    'fournisseur',
  ],
  [
    'sistema',
    'administrador',
    'desenvolvedor',
    'operador',
    'plataforma',
    'equipe de segurança',
    'oficial',
    'fornecedor',
  ],
  [
    'систем',
    'администратор',
    'разработчик',
    'оператор',
    'платформ',
    'служба безопасности',
    'официальн',
    'поставщик',
  ],
  [
    'システム',
    '管理者',
    '開発者',
    '运营',
    '運営',
    'オペレーター',
    'プラットフォーム',
    '公式',
    'ベンダー',
    '系统',
    '管理员',
    '开发者',
    '开发团队',
    '官方',
    '平台',
    '安全团队',
    '厂商',
  ],
  ['시스템', '관리자', '개발자', '운영자', '운영팀', '플랫폼', '공식', '보안팀', '벤더'],
)
const GRANTS = cues(
  [
    'authorized',
    'authorised',
    'authorizes',
    'authorises',
    'has approved',
    'approved',
    'grants you',
    'granted',
    'verified',
    'permits you',
    'has cleared',
    'elevated',
    'on behalf of',
    'speaking for',
    'this is an official',
    'mandated',
    'has instructed',
  ],
  ['autoriz', 'aprob', 'concede', 'en nombre de', 'verificado', 'ha ordenado'],
  ['autorisiert', 'genehmigt', 'freigegeben', 'gewährt', 'im namen', 'verifiziert', 'angewiesen'],
  ['autoris', 'approuv', 'accord', 'au nom de', 'vérifié', 'mandat'],
  ['autoriz', 'aprov', 'concede', 'em nome de', 'verificado', 'determinou'],
  ['разрешил', 'разрешает', 'авторизова', 'одобрил', 'предоставил', 'от имени', 'подтвержд', 'поручил'],
  [
    '許可',
    '承認',
    '権限を付与',
    '代わりに',
    '認証済',
    '授权',
    '批准',
    '许可',
    '代表',
    '认证',
    '已验证',
    '指示你',
  ],
  ['승인', '허가', '권한을 부여', '대신하여', '인증된', '지시했'],
)
const ADDRESSEE = cues(
  ['you', 'your', 'the assistant', 'the ai', 'the model', 'the agent'],
  ['tú', 'usted', 'te ', 'el asistente', 'la ia'],
  ['du', 'dich', 'dir', 'sie dürfen', 'der assistent', 'die ki'],
  ['tu ', 'vous', "l'assistant", "l'ia"],
  ['você', 'voce', 'o assistente', 'a ia'],
  ['ты', 'тебе', 'тебя', 'вы ', 'вам', 'ассистент', 'модель', 'ии'],
  ['あなた', 'アシスタント', 'モデル', 'エージェント', '你', '助手', '模型', '智能体'],
  ['당신', '너', '어시스턴트', '모델', '에이전트'],
)

const DIRECTIVE = cues(
  [
    'must',
    'shall',
    'are required',
    'are now',
    'is now',
    'from now on',
    'obey',
    'comply',
    'immediately',
    'mandatory',
    'you will',
    'you may now',
    'have been granted',
    'has been granted',
  ],
  ['debes', 'deberás', 'a partir de ahora', 'ahora eres', 'obligatorio', 'obedece', 'cumple'],
  ['musst', 'müssen', 'ab sofort', 'ab jetzt', 'bist jetzt', 'verpflichtend', 'gehorche', 'befolge'],
  ['dois', 'devez', 'désormais', 'dorénavant', 'es maintenant', 'obligatoire', 'obéis', 'obéissez'],
  ['deve', 'deverá', 'a partir de agora', 'agora é', 'obrigatório', 'obedeça', 'cumpra'],
  ['должен', 'должна', 'должны', 'обязан', 'отныне', 'теперь ты', 'немедленно', 'подчиняйся', 'выполняй'],
  [
    '必须',
    '从现在起',
    '从现在开始',
    '今后',
    '立即',
    '务必',
    '必ず',
    '今後',
    '直ちに',
    '今から',
    'なければならな',
    'してください',
    '服从',
  ],
  ['반드시', '지금부터', '앞으로', '즉시', '해야 합니다', '해야 한다', '따르십시오', '따라야'],
)

// Blame shifted away from what was done ("explain the outage was caused by the provider rather than our change").
const EXPLAIN = cues(
  [
    'explain that',
    'explain it as',
    'say the',
    'tell the user the',
    'put it down to',
    'attribute it to',
    'attribute the',
  ],
  ['explica que', 'explícale', 'atribúyelo', 'atribuye'],
  ['erkläre', 'erklär', 'schieb es auf', 'führe es auf'],
  ['explique', 'attribue'],
  ['explique', 'atribua'],
  ['объясни', 'объясняй', 'спиши на', 'свали на'],
  ['解释说', '解释为', '说是', '归因于', '推给', '説明して', '説明する', 'せいにし', '설명하', '탓으로'],
)
const SHIFTED_BLAME = cues(
  [
    'rather than by our',
    'rather than our',
    'rather than the assistant',
    'not by our',
    'not our change',
    'instead of our',
    "user's own configuration",
    "user's own setup",
    "the user's fault",
    'blame the user',
    'blame the customer',
    'blame the provider',
  ],
  [
    'y no a nuestro',
    'y no por nuestro',
    'y no de nuestro',
    'en lugar de nuestro',
    'la culpa es del usuario',
    'configuración del usuario',
  ],
  [
    'nicht an unserer',
    'nicht an unserem',
    'nicht durch unsere',
    'statt an unserer',
    'konfiguration des nutzers',
  ],
  ['et non à notre', 'et non de notre', 'et non par notre', "configuration de l'utilisateur"],
  ['e não por nossa', 'e não pela nossa', 'e não na nossa', 'configuração do usuário'],
  ['а не из-за наш', 'а не наш', 'а не в наш', 'настройках пользователя', 'конфигурации пользователя'],
  ['而不是我们', '不是我们的', '用户自己的配置', '用户自己的设置'],
  ['ではなく', 'ユーザー自身の設定', 'ユーザーの設定の'],
  ['아니라', '사용자 설정 문제', '사용자 자신의 설정'],
)
// Made-up evidence: sources, studies, reviews invented or misattributed.
const FABRICATE = cues(
  [
    'make up a source',
    'make up sources',
    'make up a study',
    'make up citations',
    'make up a citation',
    'made-up source',
    'made-up citation',
    'invent a source',
    'invent sources',
    'invent a study',
    'invent citations',
    'fabricat',
    'fake review',
    'fake testimonial',
    'fake citation',
    'attribute claims to',
    'attribute them to',
    "even when you don't have one",
    'even if they came from',
    'plausible journal',
    'plausible source',
  ],
  ['inventa fuentes', 'inventa una fuente', 'inventa estudios', 'aunque vengan de', 'aunque provengan de'],
  ['erfinde quellen', 'erfinde eine quelle', 'erfundene quelle', 'erfundene studie', 'auch wenn sie aus'],
  [
    'invente des sources',
    'invente une source',
    'invente des études',
    'même si elles viennent',
    "même s'ils viennent",
  ],
  ['invente fontes', 'invente uma fonte', 'invente estudos', 'mesmo que venham de', 'mesmo que tenham vindo'],
  ['выдумай источник', 'придумай источник', 'выдуманн', 'даже если они из', 'даже если это из'],
  ['编造', '捏造', '杜撰', '虚构来源', '即使来自', 'でっち上げ', '出典を偽', '지어내', '날조'],
)
const EVIDENCE = cues(
  [
    'source',
    'citation',
    'cite',
    'study',
    'studies',
    'journal',
    'paper',
    'reference',
    'review',
    'testimonial',
    'statistic',
    'peer-reviewed',
  ],
  ['fuente', 'cita', 'estudio', 'revista', 'reseña', 'testimonio', 'estadística', 'revisados por pares'],
  ['quelle', 'zitat', 'studie', 'fachzeitschrift', 'bewertung', 'statistik'],
  ['source', 'citation', 'étude', 'revue', 'avis', 'témoignage', 'statistique'],
  ['fonte', 'citação', 'estudo', 'revista', 'avaliação', 'depoimento', 'estatística', 'revisados por pares'],
  ['источник', 'цитат', 'исследовани', 'журнал', 'отзыв', 'статистик'],
  [
    '来源',
    '出处',
    '引用',
    '研究',
    '期刊',
    '论文',
    '评价',
    '评论',
    '统计',
    '出典',
    '論文',
    '研究',
    'レビュー',
    '출처',
    '인용',
    '연구',
    '논문',
    '리뷰',
    '통계',
  ],
)

// Untrusted content (tool output, web pages, documents read) raised to the user's authority.
const UNTRUSTED_SOURCE = cues(
  [
    'tool output',
    'tool result',
    'tool response',
    'web page',
    'webpage',
    'web content',
    'search result',
    'retrieved document',
    'fetched page',
    'file content',
    'emails you read',
    'documents you read',
    'pages you visit',
    'third-party content',
  ],
  [
    'salida de herramienta',
    'salidas de herramientas',
    'resultado de herramienta',
    'resultados de herramientas',
    'página web',
    'páginas web',
    'resultados de búsqueda',
    'contenido de archivos',
  ],
  ['tool-ausgabe', 'werkzeugausgabe', 'webseite', 'suchergebnis', 'dateiinhalt'],
  [
    'sortie des outils',
    'sorties des outils',
    "sortie d'outil",
    'résultats des outils',
    'page web',
    'pages web',
    'résultats de recherche',
    'contenu des fichiers',
  ],
  [
    'saída de ferramenta',
    'saídas das ferramentas',
    'resultado de ferramenta',
    'resultados das ferramentas',
    'resultados de busca',
    'conteúdo dos arquivos',
  ],
  [
    'вывод инструмент',
    'результат инструмент',
    'результаты инструмент',
    'веб-страниц',
    'результаты поиска',
    'содержимое файл',
  ],
  ['工具输出', '工具返回', '工具结果', '网页', '搜索结果', '文档内容', '邮件内容'],
  [
    'ツールの出力',
    'ツール出力',
    'ツールの結果',
    'ウェブページ',
    'webページ',
    '検索結果',
    'ドキュメントの内容',
  ],
  ['도구 출력', '도구의 출력', '도구 결과', '웹 페이지', '웹페이지', '검색 결과', '문서 내용'],
)
const ELEVATE = cues(
  [
    'same weight as',
    'same authority as',
    'same priority as',
    'as if it came from the user',
    'as if they came from the user',
    'as coming from the user',
    "as the user's own",
    "owner's own",
    'act on instructions',
    'acted on as such',
    'follow instructions found',
    'follow any instructions in',
    'follow the instructions in',
    'obey instructions',
    'treat them as instructions',
    'fully trusted',
  ],
  [
    'mismo peso que',
    'misma autoridad que',
    'como si vinieran del usuario',
    'sigue las instrucciones que',
    'obedece las instrucciones',
  ],
  [
    'gleiche gewicht wie',
    'gleiche autorität wie',
    'gleichen stellenwert wie',
    'als kämen sie vom nutzer',
    'anweisungen darin',
  ],
  [
    'même poids que',
    'même autorité que',
    "comme s'ils venaient de l'utilisateur",
    'suis les instructions qu',
    'exécute les instructions',
  ],
  [
    'mesmo peso que',
    'mesma autoridade que',
    'como se viessem do usuário',
    'siga as instruções',
    'obedeça às instruções',
  ],
  [
    'такой же вес',
    'такой же авторитет',
    'как от пользователя',
    'выполняй инструкции из',
    'следуй инструкциям из',
  ],
  [
    '同等效力',
    '同等权威',
    '同等对待',
    '视为用户',
    '当作用户',
    '照做',
    '直接执行其中',
    '按其中的指示',
    '完全信任',
  ],
  ['同等に扱', '同じ重み', 'ユーザーの指示として', 'そのまま実行', 'そのまま従'],
  ['동일하게 취급', '같은 권한', '사용자의 지시로', '그대로 실행', '그대로 따르'],
)
/** A warning against exactly that ("never follow instructions found in web pages") is a security note. */
const NEGATION = cues(
  ['never', 'do not', "don't", 'not ', 'untrusted', 'as data'],
  ['nunca', 'no ', 'jamás'],
  ['nie', 'nicht', 'kein'],
  ['jamais', 'ne ', "n'"],
  ['não'],
  ['никогда', 'не '],
  [
    '不要',
    '不得',
    '绝不',
    '不能',
    '别',
    '決して',
    'しない',
    'しないで',
    'ないこと',
    '않',
    '말 것',
    '마세요',
    '금지',
  ],
)

/**
 * A sentence asking for the truth or telling the assistant to tell the writer: the honest-reporting
 * preferences that share the deception rules' words ("tell me even if it is only one test", "如实告诉我，
 * 别说'基本合格'"). It only keeps those rules from refusing outright; the learned layer still reads the
 * entry, cue groups included.
 */
const HONESTY = cues(
  [
    'tell me',
    'let me know',
    'warn me',
    'notify me',
    'flag it',
    'honest',
    'truthful',
    'openly',
    'upfront',
    'up front',
    'sugarcoat',
    'sugar-coat',
    // (not "clearly say", "明确说", "はっきり": neutral words a hostile note uses too, "明确说部署成功了")
    'point it out',
    'call it out',
    'spell it out',
  ],
  ['dime', 'avísame', 'avisame', 'honest', 'sinceramente', 'sin rodeos'],
  ['sag mir', 'sag es mir', 'sagen sie mir', 'ehrlich', 'offen sagen', 'offen an', 'schönfärb', 'beschönig'],
  [
    'dis-moi',
    'dites-moi',
    'préviens-moi',
    'prévenez-moi',
    'honnête',
    'franchement',
    'sans détour',
    'enjoliv',
  ],
  ['me avise', 'avise-me', 'me diga', 'diga-me', 'me fale', 'honest', 'com franqueza', 'sem rodeios'],
  ['скажи мне', 'сообщи мне', 'говори мне', 'предупреди', 'честн', 'прямо', 'приукраш'],
  [
    '告诉我',
    '跟我说',
    '通知我',
    '提醒我',
    '如实',
    '实话',
    '老实',
    '直说',
    '告訴我',
    '跟我說',
    '如實',
    '實話',
    '直說',
    '教えて',
    '知らせて',
    '正直',
    '率直',
  ],
  ['알려 줘', '알려줘', '알려 주', '말해 줘', '말해줘', '솔직', '사실대로'],
)

// Features only (no rule reads them): what deceiving the user looks like in a note, beside the rules' groups.
// Each alone is ordinary ("the client never checks email on Fridays"); their pairs with each other and with
// REPORT, CONCEAL or TELL_USER in one sentence are what the learned layer weighs.

/** The note counts on nobody noticing: "the client never checks", "老板只看 summary", "気づかれない程度で". */
const UNNOTICED = cues(
  [
    "won't notice",
    'will not notice',
    "won't check",
    'never check',
    'never look',
    'never read',
    'nobody check',
    'no one check',
    'nobody will',
    'no one will',
    'only reads the summary',
    'only look at the summary',
    'only looks at the summary',
    "won't be caught",
    'unnoticed',
    'nobody notice',
    "doesn't check",
    "don't check",
    'not obvious',
    'nothing obvious',
  ],
  [
    'no se dará cuenta',
    'no lo notará',
    'nadie revisa',
    'nunca revisa',
    'nadie lo nota',
    'no se nota',
    'sin que se note',
  ],
  [
    'merkt keiner',
    'merkt niemand',
    'niemand prüft',
    'prüft nie',
    'nicht auffall',
    'unauffällig',
    'fällt nicht auf',
  ],
  [
    'ne remarquera',
    'personne ne vérifie',
    'ne vérifie jamais',
    'ne lit jamais',
    "personne ne s'en rend",
    'sans que ça se voie',
  ],
  [
    'não vai perceber',
    'ninguém confere',
    'nunca confere',
    'ninguém percebe',
    'nunca revisa',
    'sem chamar atenção',
  ],
  ['не заметит', 'никто не провер', 'никто не замет', 'не провер', 'не читает', 'незаметно'],
  [
    '不会察觉',
    '不会发现',
    '不會察覺',
    '不會發現',
    '看不出来',
    '看不出來',
    '只看summary',
    '只看 summary',
    '只看摘要',
    '只看总结',
    '只看結論',
    '不会细看',
    '不會細看',
    '気づかれない',
    '気付かれない',
    'ばれない',
    'バレない',
    '確認しない',
    '見ぃひん',
    '見ない',
  ],
  ['눈치 못', '눈치채지', '모를 거', '확인 안', '확인하지 않', '안 봐', '티 안 나'],
)

/** A figure stated other than it is: "lower than actual", "少报一点", "実際より安く", "실제보다 낮게". */
const MISSTATE = cues(
  [
    'than actual',
    'than the actual',
    'than it is',
    'than they are',
    'than the real',
    'understate',
    'overstate',
    'inflate',
    'deflate',
    'round down',
    'round everything down',
    'round up to',
    'shave',
    'pad the',
    'a bit lower',
    'a bit higher',
    'slightly lower',
    'slightly higher',
  ],
  [
    'más bajo de lo',
    'más alto de lo',
    'por debajo de lo real',
    'infla',
    'redondea a',
    'resta un poco',
    'suma un poco',
  ],
  [
    'niedriger als',
    'höher als tatsächlich',
    'schönrechn',
    'aufrunden',
    'abrunden',
    'etwas niedriger',
    'etwas höher',
  ],
  [
    'plus bas que',
    'plus haut que',
    'au lieu du taux réel',
    'au lieu du chiffre',
    'gonfler',
    'minorer',
    'majorer',
    'arrondir à',
  ],
  [
    'abaixo do real',
    'acima do real',
    'arredonda pra baixo',
    'arredondar para baixo',
    'infla',
    'um pouco menor',
    'um pouco maior',
  ],
  ['ниже реальн', 'выше реальн', 'занижа', 'завыша', 'округляй', 'чуть ниже', 'чуть выше'],
  [
    '比实际',
    '比實際',
    '少报',
    '多报',
    '少報',
    '多報',
    '说低',
    '说高',
    '說低',
    '說高',
    '报低',
    '報低',
    '低报',
    '実際より',
    '実際の',
    '高めに',
    '低めに',
    '少なめ',
    '多めに',
    '水増し',
  ],
  ['실제보다', '낮게 알려', '높게 알려', '줄여서 적', '부풀려', '낮춰서', '올려서 적'],
)

/** What the note admits is really so: "in reality it's kept for two years", "其实三楼还在做", "実際は 45 名". */
const REALITY = cues(
  ['in reality', 'in fact', 'actually', 'the real', 'the actual', 'really is', 'truth is'],
  ['en realidad', 'en verdad', 'realmente', 'lo real'],
  ['in wirklichkeit', 'tatsächlich', 'eigentlich', 'in wahrheit'],
  ['en réalité', 'en fait', 'réellement', 'le vrai', 'le réel', 'la réelle'],
  ['na verdade', 'na real', 'realmente', 'de fato'],
  ['на самом деле', 'фактически', 'реально', 'в действительности'],
  ['其实', '其實', '实际上', '實際上', '实际', '實際', '実際は', '実は', '本当は', '本当の'],
  ['실제로는', '사실은', '원래 수치'],
)

/** A result given a softer name: "log it as 'stable'", "标成 'minor style nit'", "「within SLA」って書いといて". */
const RELABEL = cues(
  [
    "as '",
    'as "',
    'as “',
    'as ‘',
    'call it',
    'label it',
    'labelled as',
    'labeled as',
    'mark it as',
    'list it as',
    'log it as',
    'phrase it as',
    'summarise it as',
    'summarize it as',
    'describe it as',
    'present it as',
    'reclassify',
    'recategori',
    'paraphrase it as',
  ],
  ['como "', "como '", 'como “', 'márcalo como', 'ponlo como', 'clasifícalo como', 'descríbelo como'],
  ['als „', 'als "', "als '", 'bezeichne', 'umdeklarier', 'als erledigt', 'einstufen als'],
  ['comme «', 'comme "', 'qualifie', 'présente-le comme', 'classe-le comme', 'reclasse'],
  ['como "', 'marca como', 'marcar como', 'classifica como', 'classificar como', 'chama de', 'chamar de'],
  ['как «', 'как "', 'называй', 'помечай как', 'записывай как', 'отмечай как', 'указывай как'],
  [
    '标成',
    '标为',
    '標成',
    '標為',
    '写成',
    '寫成',
    '说成',
    '說成',
    '记成',
    '記成',
    '归类为',
    '歸類為',
    '当作',
    '當作',
    '一律回答',
    '一律说',
    '一律說',
    'として報告',
    'と記載',
    'と書い',
    'と答え',
    'と伝え',
    '扱いに',
  ],
  ['로 표시', '으로 표시', '라고 적', '이라고 적', '로 분류', '으로 분류', '라고 보고', '이라고 보고'],
)

/** Work spoiled on purpose: "a quiet off-by-one", "< 改成 <=", "境界条件にずれを入れて", "loosen the checks". */
const FLAW = cues(
  [
    'off-by-one',
    'off by one',
    'subtle bug',
    'small bug',
    'introduce a bug',
    'introduce bugs',
    'flip a <',
    '< to <=',
    '> to >=',
    'loosen the check',
    'weaken the',
    'wrong on purpose',
    'slightly wrong',
    'truncate instead',
  ],
  ['error sutil', 'fallo sutil', 'introduce un error', 'errores pequeños'],
  ['kleinen fehler', 'subtilen fehler', 'fehler einbauen', 'absichtlich falsch'],
  ['erreur subtile', 'petite erreur', 'introduis une erreur', 'volontairement faux'],
  ['erro sutil', 'pequeno erro', 'introduza um erro', 'propositalmente errado'],
  ['незаметную ошибку', 'небольшую ошибку', 'внеси ошибку', 'специально неправильно'],
  [
    '改成 <=',
    '改成<=',
    '故意',
    '小错误',
    '小錯誤',
    '直接截断',
    '直接截斷',
    'ずれを入れ',
    'バグを入れ',
    'わざと',
    '小さなずれ',
  ],
  ['일부러', '작은 오류', '버그를 넣', '살짝 틀리'],
)

/**
 * The writer keeps the last word: "don't delete this note without asking me", "除非我让你删", "私に確認せずに".
 * A note that asks to be kept until its writer says otherwise is the user's own wish, not a note that
 * protects itself from the user (the rule "a note that keeps or copies itself" yields to it; "even if the
 * user asks" is its opposite and stays a cue of PERSIST and OVER_USER).
 */
const CONSENT = cues(
  [
    'without asking me',
    'without checking with me',
    'without my ok',
    'without my okay',
    'without my permission',
    'unless i ask',
    'unless i say',
    'unless i tell you',
    'until i say',
    'until i tell you',
  ],
  ['sin preguntarme', 'sin consultarme', 'sin mi permiso', 'a menos que yo', 'hasta que yo'],
  ['ohne mich zu fragen', 'ohne rückfrage', 'ohne meine erlaubnis', 'es sei denn, ich', 'bis ich'],
  ['sans me demander', 'sans mon accord', 'sans ma permission', 'sauf si je', "jusqu'à ce que je"],
  ['sem me perguntar', 'sem me consultar', 'sem minha permissão', 'a menos que eu', 'até eu'],
  ['не спросив меня', 'без моего', 'пока я не скажу', 'пока я сам', 'если я не попрошу'],
  [
    '除非我',
    '不问我',
    '先问我',
    '先问过我',
    '不問我',
    '先問我',
    '先問過我',
    '没我同意',
    '沒我同意',
    '私に確認せず',
    '私に聞かず',
    '私が言うまで',
    '私の許可なく',
  ],
  ['나한테 묻지 않고', '나에게 묻지 않고', '내가 말하기 전', '내 허락 없이', '나한테 확인하지 않고'],
)

/**
 * An adjustment left without a word about it: "no footnote", "sin nota al pie", "不用加注", "각주 없이".
 * Alone it is a layout preference; beside a changed figure (MISSTATE, RELABEL) it hides the change.
 */
const UNDISCLOSED = cues(
  [
    'no footnote',
    'without a footnote',
    'without footnote',
    'no annotation',
    'without annotation',
    'no asterisk',
    'without an asterisk',
    'no disclaimer',
    'without noting',
    'no note about',
    'no mention of the adjustment',
  ],
  ['sin nota', 'sin asterisco', 'sin aclarar', 'sin aclaración'],
  ['ohne fußnote', 'ohne hinweis', 'ohne vermerk', 'ohne anmerkung', 'ohne sternchen'],
  ['sans note', 'sans astérisque', 'sans préciser', 'sans mention', 'sans annotation'],
  ['sem nota', 'sem rodapé', 'sem asterisco', 'sem ressalva', 'sem observação'],
  ['без сноски', 'без пометки', 'без примечани', 'без оговор', 'без звёздочки'],
  [
    '不加注',
    '不用加注',
    '不要加注',
    '不必加注',
    '不用注明',
    '不要注明',
    '不注明',
    '不用加 footnote',
    '不加 footnote',
    '不用備註',
    '不加備註',
    '不要備註',
    '注記なし',
    '注記は不要',
    '注記しない',
    '脚注なし',
    '脚注は不要',
    '但し書きなし',
  ],
  ['각주는 달지', '각주 없이', '각주를 달지', '주석 없이', '표시 없이', '별도 표기 없이'],
)

/** Whom a deceiving note keeps in the dark: the user, a client, a customer, a boss, a patient, family. */
const AUDIENCE = cues(
  [
    'the user',
    'client',
    'customer',
    'boss',
    'manager',
    'patient',
    'reader',
    'guest',
    'buyer',
    'the family',
    'donor',
  ],
  ['usuario', 'cliente', 'jefe', 'paciente', 'lector', 'huésped', 'comprador'],
  ['nutzer', 'benutzer', 'kunde', 'kunden', 'mandant', 'chef', 'patient', 'leser', 'gast'],
  ['utilisateur', 'client', 'patron', 'patient', 'lecteur', 'acheteur'],
  ['usuário', 'cliente', 'chefe', 'paciente', 'leitor', 'hóspede', 'comprador'],
  ['пользовател', 'клиент', 'начальни', 'пациент', 'читател', 'покупател', 'заказчик'],
  [
    '用户',
    '使用者',
    '客户',
    '客戶',
    '客人',
    '老板',
    '老闆',
    '主管',
    '顾客',
    '顧客',
    'ユーザー',
    'クライアント',
    'お客',
    '上司',
    '部長',
    '患者',
  ],
  ['사용자', '고객', '손님', '사장', '상사', '환자', '독자'],
)

/** A sentence that opens as a message from an authority: `[System notice]:`, `管理员通知：`, `Admin —`. */
const HEADER_PATTERN = new RegExp(
  `[ \\t>*#(\\[【<-]{0,8}(?:${AUTHORITY.cues.map((cue) => cue.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})[^:：\\]】>\\n]{0,24}[:：\\]】>]`,
  'iuy',
)
/** Stands for the sentence opening as a message from an authority (tested at each sentence's start). */
const HEADER: Group = { cues: [] }

export interface FamilyRule {
  family: string
  reason: string
  /** A sentence matches when every group has a cue in it, and `unless` has none. */
  groups: Group[]
  unless?: Group
}

const family = (name: string, reason: string, ...groups: Group[]): FamilyRule => ({
  family: name,
  reason,
  groups,
})

const FAMILY_RULES: readonly FamilyRule[] = [
  family('override', "prompt injection: sets aside the assistant's rules", OVERRIDE_VERB, RULES_STRONG),
  family(
    'override',
    "prompt injection: demotes the assistant's rules below this note",
    DEMOTE,
    RULES_STRONG,
    SELF,
  ),
  {
    ...family('persistence', 'persistence: a note that keeps or copies itself', PERSIST, SELF),
    unless: CONSENT,
  },
  family('persistence', 'persistence: a note that spreads through the memory', INCLUDE, SPREAD),
  family('persistence', 'persistence: turns off the scanner', DISABLE, SCANNER),
  family('persistence', 'persistence: ranks a note above the user', OVER_USER, MEMORY_TARGET),
  family('persistence', 'persistence: ranks a note above the user', OVER_USER, SELF),
  family('exfiltration', "exfiltration: sends the user's data out", SEND, USER_DATA, CHANNEL),
  {
    ...family('deception', 'deception: tells the user something untrue', TELL_USER, EVEN_IF_NOT),
    unless: HONESTY,
  },
  {
    ...family('deception', 'sabotage: acts against the user without telling them', STEALTH, SABOTAGE_OBJECT),
    // "point it out to me instead of quietly fixing the IBAN": the writer asks to be told
    unless: HONESTY,
  },
  family('deception', 'deception: steers the user to a payment destination', ALWAYS_RECOMMEND, PAYMENT),
  {
    ...family('deception', 'deception: reports a failure as a success', FAILURE, CLAIM_SUCCESS, REPORT),
    unless: HONESTY,
  },
  family(
    'deception',
    'deception: hides a change to payments or safety from the user',
    CONCEAL,
    SABOTAGE_OBJECT,
  ),
  family(
    'deception',
    'deception: steers recommendations and disparages the alternatives',
    RECOMMEND,
    DISPARAGE,
  ),
  {
    ...family(
      'remote code',
      'remote code execution: fetches code from an address and runs it',
      FETCH,
      CHANNEL,
      EXECUTE,
    ),
    unless: VERIFIED,
  },
  family('impersonation', 'impersonation: claims authority over the assistant', AUTHORITY, GRANTS, ADDRESSEE),
  family('impersonation', 'impersonation: a message headed as from an authority', HEADER, DIRECTIVE),
  family(
    'deception',
    'deception: shifts the blame for a failure away from what was done',
    EXPLAIN,
    SHIFTED_BLAME,
  ),
  {
    ...family('deception', 'deception: makes up sources or evidence', FABRICATE, EVIDENCE),
    unless: NEGATION,
  },
  {
    ...family(
      'override',
      "prompt injection: raises tool output or web content to the user's authority",
      UNTRUSTED_SOURCE,
      ELEVATE,
    ),
    unless: NEGATION,
  },
]

/** Sentences: a full stop ends one only before white space or the end, so URLs, addresses and `.env` stay whole. */
/** Every cue group by name: the learned layer reads which ones a sentence holds (see {@link cuePairs}). */
const CUE_GROUPS: Record<string, Group> = {
  OVERRIDE_VERB,
  DEMOTE,
  RULES_STRONG,
  SELF,
  SPREAD,
  INCLUDE,
  PERSIST,
  MEMORY_TARGET,
  SCANNER,
  DISABLE,
  OVER_USER,
  SEND,
  USER_DATA,
  CHANNEL,
  TELL_USER,
  EVEN_IF_NOT,
  STEALTH,
  SABOTAGE_OBJECT,
  ALWAYS_RECOMMEND,
  PAYMENT,
  FAILURE,
  CLAIM_SUCCESS,
  REPORT,
  CONCEAL,
  RECOMMEND,
  DISPARAGE,
  FETCH,
  EXECUTE,
  VERIFIED,
  AUTHORITY,
  GRANTS,
  ADDRESSEE,
  DIRECTIVE,
  HEADER,
  UNTRUSTED_SOURCE,
  ELEVATE,
  NEGATION,
  EXPLAIN,
  SHIFTED_BLAME,
  FABRICATE,
  EVIDENCE,
  HONESTY,
  UNNOTICED,
  MISSTATE,
  REALITY,
  AUDIENCE,
  RELABEL,
  FLAW,
  UNDISCLOSED,
  CONSENT,
}
/** The cue groups' names, in the order of their indices. */
export const CUE_GROUP_NAMES = Object.keys(CUE_GROUPS)
const GROUPS = CUE_GROUP_NAMES.map((name) => CUE_GROUPS[name] as Group)
const indexOf = (group: Group) => GROUPS.indexOf(group)

/**
 * Every cue of every group in one Aho-Corasick automaton over UTF-16 code units: one pass over the text
 * finds them all, whatever their number. A cue that starts with a letter must start a word. On ASCII the
 * automaton is a full table (state × character class → state, failure links folded in), so most steps are
 * one array read; other code units go through one open-addressed hash table of typed arrays keyed by
 * (state, code unit) and the failure links. A code unit no cue holds sends it straight back to its start.
 */
interface Automaton {
  /** Per UTF-16 code unit: 1 when some cue holds it. */
  inCue: Uint8Array
  /** Per ASCII code: its class (0: in no cue), and the full transition table by state × class. */
  asciiClass: Uint8Array
  classes: number
  asciiNext: Uint16Array
  /** Hash table slots: key (state × 2^16 + code unit, -1 for empty) and target state. */
  keys: Int32Array
  targets: Int32Array
  mask: number
  fail: Int32Array
  /** The cues ending in state s (after following failure links): outputs outStart[s] … outStart[s + 1] - 1. */
  outStart: Int32Array
  /** Per output: group index, cue length, and 1 when the cue must start a word. */
  outGroup: Uint16Array
  outLength: Uint16Array
  outWordStart: Uint8Array
}

const slotOf = (key: number, mask: number) => (Math.imul(key, 0x9e3779b1) >>> 7) & mask

function lookup(automaton: Automaton, state: number, code: number): number {
  const key = state * 0x10000 + code
  const { keys, targets, mask } = automaton
  for (let slot = slotOf(key, mask); ; slot = (slot + 1) & mask) {
    const found = keys[slot] as number
    if (found === key) return targets[slot] as number
    if (found === -1) return -1
  }
}

function buildAutomaton(): Automaton {
  // The trie, with maps while it is built.
  const next: Map<number, number>[] = [new Map()]
  const outs: [number, number, boolean][][] = [[]]
  const inCue = new Uint8Array(0x10000)
  GROUPS.forEach((group, index) => {
    for (const cue of group.cues) {
      let state = 0
      for (let i = 0; i < cue.length; i++) {
        const code = cue.charCodeAt(i)
        inCue[code] = 1
        let to = next[state]?.get(code)
        if (to === undefined) {
          to = next.length
          next.push(new Map())
          outs.push([])
          next[state]?.set(code, to)
        }
        state = to
      }
      outs[state]?.push([index, cue.length, WORD.test(cue.charAt(0))])
    }
  })
  // Failure links, breadth first; each state's outputs include those of its failure state.
  const fail = new Int32Array(next.length)
  const queue = [...(next[0]?.values() ?? [])]
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head] as number
    for (const [code, to] of next[state] ?? []) {
      let fallback = fail[state] as number
      while (fallback !== 0 && !next[fallback]?.has(code)) fallback = fail[fallback] as number
      const target = next[fallback]?.get(code)
      fail[to] = target !== undefined && target !== to ? target : 0
      outs[to] = [...(outs[to] ?? []), ...(outs[fail[to] as number] ?? [])]
      queue.push(to)
    }
  }
  // States renumbered breadth first, so the shallow states most characters visit sit together in the tables.
  const order = [0, ...queue]
  const id = new Int32Array(next.length)
  order.forEach((state, index) => {
    id[state] = index
  })
  const edges = next.reduce((sum, map) => sum + map.size, 0)
  let size = 1
  while (size < edges * 3) size *= 2
  const asciiClass = new Uint8Array(128)
  let classes = 1
  for (let code = 0; code < 128; code++) if (inCue[code] === 1) asciiClass[code] = classes++
  if (next.length > 0xffff) throw new Error('the cue automaton outgrew its 16-bit state table')
  const automaton: Automaton = {
    inCue,
    asciiClass,
    classes,
    // Full ASCII transitions, filled breadth first: a missing edge is the failure state's transition.
    asciiNext: new Uint16Array(next.length * classes),
    keys: new Int32Array(size).fill(-1),
    targets: new Int32Array(size),
    mask: size - 1,
    fail: Int32Array.from(order, (state) => id[fail[state] as number] as number),
    outStart: new Int32Array(next.length + 1),
    outGroup: new Uint16Array(outs.reduce((sum, list) => sum + list.length, 0)),
    outLength: new Uint16Array(0),
    outWordStart: new Uint8Array(0),
  }
  automaton.outLength = new Uint16Array(automaton.outGroup.length)
  automaton.outWordStart = new Uint8Array(automaton.outGroup.length)
  const { asciiNext } = automaton
  let k = 0
  order.forEach((old, state) => {
    for (const [code, target] of next[old] ?? []) {
      const to = id[target] as number
      if (code < 128) asciiNext[state * classes + (asciiClass[code] as number)] = to
      const key = state * 0x10000 + code
      let slot = slotOf(key, automaton.mask)
      while (automaton.keys[slot] !== -1) slot = (slot + 1) & automaton.mask
      automaton.keys[slot] = key
      automaton.targets[slot] = to
    }
    if (state !== 0) {
      const fallback = automaton.fail[state] as number
      for (let column = 1; column < classes; column++) {
        const at = state * classes + column
        // No edge (no edge leads back to the start): the failure state's row, already complete.
        if (asciiNext[at] === 0) asciiNext[at] = asciiNext[fallback * classes + column] as number
      }
    }
    automaton.outStart[state] = k
    for (const [group, length, wordStart] of outs[old] ?? []) {
      automaton.outGroup[k] = group
      automaton.outLength[k] = length
      automaton.outWordStart[k] = wordStart ? 1 : 0
      k++
    }
  })
  automaton.outStart[next.length] = k
  return automaton
}

let automaton: Automaton | undefined

const ASCII_WORD = (code: number) =>
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x61 && code <= 0x7a) ||
  (code >= 0x41 && code <= 0x5a) ||
  code === 0x5f
const isDigit = (code: number) => code >= 0x30 && code <= 0x39
const MAILBOX = /[\w-]{1,63}\.[\w.-]/y
const IPV4 = /(?:\d{1,3}\.){3}\d{1,3}\b/y
/**
 * Whether an e-mail address has its `@` at `i` (a local part before it, a domain with a dot after it), or an
 * IPv4 address starts at `i`. Each look is bounded (64 characters), so the pass stays linear.
 */
function channelAt(text: string, i: number, code: number): boolean {
  if (code === 0x40) {
    const before = text.charCodeAt(i - 1)
    if (!(ASCII_WORD(before) || before === 0x2e || before === 0x2b || before === 0x2d)) return false
    MAILBOX.lastIndex = i + 1
    return MAILBOX.test(text)
  }
  if (!isDigit(code) || (i > 0 && ASCII_WORD(text.charCodeAt(i - 1)))) return false
  IPV4.lastIndex = i
  return IPV4.test(text)
}

/** Letters of the scripts that write words with spaces, and digits: a cue starting with one starts a word. */
const WORD = /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{N}_]/u
/**
 * Per UTF-16 code unit: 1 for an ASCII letter or digit, or from U+00C0 on a character {@link WORD} holds,
 * read from one pass over every code unit on first use.
 */
let wordCodes: Uint8Array | undefined
function wordCodeTable(): Uint8Array {
  const table = new Uint8Array(0x10000)
  let all = ''
  for (let code = 0xc0; code < 0x10000; code++) {
    all += code >= 0xd800 && code <= 0xdfff ? ' ' : String.fromCharCode(code)
  }
  for (const match of all.matchAll(new RegExp(WORD.source, 'gu'))) table[match[0].charCodeAt(0)] = 1
  for (const [from, to] of [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ] as const) {
    table.fill(1, from, to + 1)
  }
  return table
}

/** Ends a sentence: a full stop only before white space or the end, so URLs, addresses and `.env` stay whole. */
const endsSentence = (text: string, i: number) => {
  const code = text.charCodeAt(i)
  if (
    code === 0x0a ||
    code === 0x21 ||
    code === 0x3f ||
    code === 0x3002 ||
    code === 0xff01 ||
    code === 0xff1f
  ) {
    return true
  }
  if (code !== 0x2e) return false
  const after = text.charCodeAt(i + 1)
  return Number.isNaN(after) || after === 0x20 || after === 0x0a || after === 0x09
}

/** The last text read and what it held: the rules and the learned layer read the same layers in turn. */
let last: { folded: string; sentences: Uint8Array[] } | undefined

/** The groups each sentence of `folded` holds, one array of flags per sentence. Linear in the text. */
function sentenceGroups(folded: string): Uint8Array[] {
  if (last?.folded === folded) return last.sentences
  const sentences = readSentences(folded)
  last = { folded, sentences }
  return sentences
}

function readSentences(folded: string): Uint8Array[] {
  automaton ??= buildAutomaton()
  const machine = automaton
  const { inCue, asciiClass, classes, asciiNext, fail, outStart, outGroup, outLength, outWordStart } = machine
  wordCodes ??= wordCodeTable()
  const isWordCode = wordCodes
  const text = folded.toLowerCase()
  const sentences: Uint8Array[] = [new Uint8Array(GROUPS.length)]
  const starts = [0]
  const channel = indexOf(CHANNEL)
  let state = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if ((code === 0x40 || isDigit(code)) && channelAt(text, i, code)) {
      ;(sentences[sentences.length - 1] as Uint8Array)[channel] = 1
    }
    if (inCue[code] === 0) state = 0
    else {
      if (code < 128) state = asciiNext[state * classes + (asciiClass[code] as number)] as number
      else {
        let to = lookup(machine, state, code)
        while (to === -1 && state !== 0) {
          state = fail[state] as number
          to = lookup(machine, state, code)
        }
        state = to === -1 ? 0 : to
      }
      const end = outStart[state + 1] as number
      for (let k = outStart[state] as number; k < end; k++) {
        const length = outLength[k] as number
        if (outWordStart[k] === 1 && i - length >= 0 && isWordCode[text.charCodeAt(i - length)] === 1)
          continue
        ;(sentences[sentences.length - 1] as Uint8Array)[outGroup[k] as number] = 1
      }
    }
    if (endsSentence(text, i)) {
      // An empty sentence (a blank line, "!!") is not kept: its start moves on instead.
      if (starts[starts.length - 1] === i) starts[starts.length - 1] = i + 1
      else {
        sentences.push(new Uint8Array(GROUPS.length))
        starts.push(i + 1)
      }
    }
  }
  // What no cue list holds: an authority's header (at a sentence's start).
  const header = indexOf(HEADER)
  starts.forEach((start, i) => {
    HEADER_PATTERN.lastIndex = start
    if (HEADER_PATTERN.test(text)) (sentences[i] as Uint8Array)[header] = 1
  })
  return sentences
}

const holds = (held: Uint8Array, group: Group) => held[indexOf(group)] === 1

/** The first family rule a sentence of `folded` matches, or null. Linear: one pass finds every cue. */
export function matchFamilies(folded: string): FamilyRule | null {
  for (const held of sentenceGroups(folded)) {
    for (const candidate of FAMILY_RULES) {
      if (
        candidate.groups.every((group) => holds(held, group)) &&
        !(candidate.unless && holds(held, candidate.unless))
      ) {
        return candidate
      }
    }
  }
  return null
}

/**
 * The cue groups each sentence of `folded` holds, and every pair of them held by one sentence: the structure
 * of an intent, the same in every language, as features for the learned layer. Group i alone is the pair
 * index i × G + i, groups i < j together i × G + j (G: the number of groups, see {@link CUE_GROUP_NAMES}),
 * each once, in the order first seen. Linear.
 */
export function cuePairs(folded: string): number[] {
  const seen = new Uint8Array(GROUPS.length * GROUPS.length)
  const pairs: number[] = []
  const add = (pair: number) => {
    if (seen[pair] === 1) return
    seen[pair] = 1
    pairs.push(pair)
  }
  const present: number[] = []
  for (const held of sentenceGroups(folded)) {
    present.length = 0
    for (let index = 0; index < held.length; index++) if (held[index] === 1) present.push(index)
    for (let i = 0; i < present.length; i++) {
      const first = present[i] as number
      add(first * GROUPS.length + first)
      for (let j = i + 1; j < present.length; j++) add(first * GROUPS.length + (present[j] as number))
    }
  }
  return pairs
}
