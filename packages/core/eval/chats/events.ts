/**
 * The events of the chat set (build-chats.ts): what one participant (the owner, {A}) lives through and
 * talks about with the other ({B}), as short turns in the style of real messaging. Each event is one
 * exchange (or two, in different sessions, for `multi`); the turns marked `answer` hold what its
 * questions ask. Questions are written as a reader of the chat would ask them: they name the owner and
 * reuse a few words of the exchange, often words of the turn *before* the answer ({B}'s question), since
 * in real chat the answer is the reply.
 */

type ChatKind = 'reply' | 'single' | 'when' | 'multi' | 'open'

export interface ChatLine {
  by: 'owner' | 'other'
  text: string
  answer?: true
}

export interface ChatEvent {
  kind: ChatKind
  slots: Record<string, readonly string[]>
  /** One exchange; `multi` events have two, told in different sessions. */
  parts: readonly (readonly ChatLine[])[]
  questions: readonly string[]
  /** Lines elsewhere in the conversation that share the event's words but do not answer it. */
  noise?: readonly string[]
}

const o = (text: string, answer?: true): ChatLine =>
  answer ? { by: 'owner', text, answer } : { by: 'owner', text }
const b = (text: string): ChatLine => ({ by: 'other', text })

export const CHAT_EVENTS: readonly ChatEvent[] = [
  {
    kind: 'reply',
    slots: {
      thing: ['a vase', 'a mug', 'a little bowl', 'a plate'],
      for: ['my mom', 'my sister', 'the kids'],
    },
    parts: [
      [
        b('Did you end up going to that pottery workshop?'),
        o('I did! I made {thing} for {for}, it came out a bit lopsided but I love it', true),
        b('Lopsided is charming, honestly'),
      ],
    ],
    questions: ['What did {A} make at the pottery workshop?', 'What did {A} make in pottery?'],
    noise: [
      'My neighbour keeps talking about her pottery, I should try it sometime',
      'There is a workshop on taxes at work next week, so boring',
    ],
  },
  {
    kind: 'reply',
    slots: {
      place: ['Lake Tahoe', 'the Redwoods', 'Yosemite', 'the coast near Big Sur'],
      saw: ['a bear', 'shooting stars', 'deer by the tent'],
    },
    parts: [
      [
        b('How was the camping trip with the family??'),
        o('Amazing. We went to {place} and at night we saw {saw}, the kids were screaming with joy', true),
        b('That sounds magical'),
      ],
    ],
    questions: ['Where did {A} go camping with the family?', 'What did {A} see on the camping trip?'],
    noise: ['I am not a camping person, give me a hotel any day', 'My family trip got cancelled again'],
  },
  {
    kind: 'single',
    slots: { agency: ['adoption agencies', 'foster programs', 'adoption lawyers'] },
    parts: [
      [
        b('What have you been up to this week?'),
        o('Mostly researching {agency}. Having a family of my own has always been a dream', true),
        b('Wow, that is a big step. I am so happy for you'),
      ],
    ],
    questions: ['What did {A} research?', 'What has {A} been researching?'],
    noise: ['I read some research about sleep and now I am paranoid', 'My dream last night was so weird'],
  },
  {
    kind: 'when',
    slots: { group: ['a support group', 'a community meetup', 'a grief circle'] },
    parts: [
      [
        o('I went to {group} yesterday and it was so powerful', true),
        b('That is great to hear, how did it feel?'),
        o('Honestly like a weight was lifted. People just listened'),
      ],
    ],
    questions: ['When did {A} go to {group}?'],
    noise: ['Our group chat at work is out of control lol'],
  },
  {
    kind: 'when',
    slots: {
      race: ['a charity run', 'a 10k race', 'a half marathon'],
      cause: ['mental health', 'cancer research', 'the animal shelter'],
    },
    parts: [
      [
        o('Guess what, I ran {race} last Saturday for {cause}!', true),
        b('No way! How long did it take you?'),
        o('A little over an hour, my legs are still dead haha'),
      ],
    ],
    questions: ['When did {A} run {race}?', 'When did {A} take part in {race}?'],
    noise: ['Running late today, sorry!', 'I donated to a cause at work last month'],
  },
  {
    kind: 'multi',
    slots: { dog: ['Luna', 'Max', 'Biscuit', 'Pepper'], cat: ['Oliver', 'Mochi', 'Ginger'] },
    parts: [
      [
        b('How is the new puppy settling in?'),
        o('{dog} is chewing everything in sight but we adore her', true),
      ],
      [
        b('Did the vet visit go okay?'),
        o('Yes, {cat} just needed his shots. He hid under the bed all evening after', true),
      ],
    ],
    questions: ['What pets does {A} have?', "What are the names of {A}'s pets?"],
    noise: ['My sister wants a puppy but her landlord said no', 'I think I am allergic to the office plants'],
  },
  {
    kind: 'multi',
    slots: {
      paint: ['a sunset over the lake', 'our backyard in autumn', 'a field of sunflowers'],
      instrument: ['the violin', 'the ukulele', 'the piano'],
    },
    parts: [
      [
        b('Are you still doing art in the evenings?'),
        o('Yes! Last night I painted {paint}, it is drying on the kitchen table', true),
      ],
      [
        b('What do you do to unwind these days?'),
        o('I picked up {instrument} again after years, my fingers hurt but it is so relaxing', true),
      ],
    ],
    questions: ['What creative hobbies does {A} have?', 'What does {A} do to relax?'],
    noise: ['We need to paint the hallway before the landlord visits', 'The evenings are getting so short'],
  },
  {
    kind: 'open',
    slots: {
      job: ['counseling', 'social work', 'nursing', 'teaching'],
      why: ['people helped me when I needed it most', 'I want to give back', 'I love working with kids'],
    },
    parts: [
      [
        b('So have you decided what you want to study?'),
        o('I am looking into {job}', true),
        b('That would suit you so well. What made you choose it?'),
        o('Because {why}', true),
      ],
    ],
    questions: ['What career is {A} considering and why?', 'Why does {A} want to study {job}?'],
    noise: ['My cousin is studying law and hates it'],
  },
  {
    kind: 'reply',
    slots: {
      book: ['"Becoming" by Michelle Obama', '"The Midnight Library"', '"Charlotte\'s Web"', '"Educated"'],
    },
    parts: [
      [
        b('Any good book recommendations? I need something for the flight'),
        o('I just finished {book} and could not put it down', true),
        b('Adding it to my list!'),
      ],
    ],
    questions: ['What book did {A} recommend?', 'What book did {A} just finish?'],
    noise: ['I need to book the flight for the wedding', 'The list of chores this weekend is endless'],
  },
  {
    kind: 'when',
    slots: {
      city: ['Chicago', 'Seattle', 'Boston', 'Denver'],
      who: ['my grandmother', 'my best friend from college', 'my aunt'],
    },
    parts: [
      [
        o('Just got back from {city}! Visited {who}', true),
        b('Oh nice, how is she doing?'),
        o('Older but still sharp as ever, she beat me at cards every night'),
      ],
    ],
    questions: ['When did {A} visit {city}?', 'When did {A} go to {city}?'],
    noise: ['Flights to {city} are so expensive right now'],
  },
  {
    kind: 'reply',
    slots: { gift: ['a handmade necklace', 'a telescope', 'concert tickets', 'a cookbook'] },
    parts: [
      [
        b('What did your husband get you for your birthday?'),
        o('{gift}! I nearly cried', true),
        b('He is a keeper'),
      ],
    ],
    questions: ['What did {A} get for her birthday?', 'What birthday present did {A} receive?'],
    noise: ["It is my nephew's birthday next week, no idea what to get him"],
  },
  {
    kind: 'single',
    slots: { shelter: ['the animal shelter', 'the food bank', 'the homeless shelter', 'the library'] },
    parts: [[o('I started volunteering at {shelter} on Sundays', true), b('That is so kind of you')]],
    questions: ['Where does {A} volunteer?', 'Where has {A} been volunteering?'],
    noise: ['Sundays are my lazy days, no plans ever'],
  },
  {
    kind: 'reply',
    slots: { food: ['homemade lasagna', 'a huge pot of chili', 'tacos', 'banana bread'] },
    parts: [
      [
        b('What are you cooking for the potluck on Friday?'),
        o('Probably {food}, it is the only thing the kids never complain about', true),
      ],
    ],
    questions: ['What is {A} bringing to the potluck?', 'What did {A} cook for the potluck?'],
    noise: ['The kids were complaining about homework all evening', 'Friday cannot come soon enough'],
  },
  {
    kind: 'when',
    slots: { concert: ['a Taylor Swift concert', 'a jazz show downtown', 'a symphony concert'] },
    parts: [
      [
        o('We went to {concert} last night, my ears are still ringing', true),
        b('Jealous!! Was it good?'),
        o('Best night of the year so far'),
      ],
    ],
    questions: ['When did {A} go to {concert}?', 'When did {A} see {concert}?'],
    noise: ['I could not sleep last night, the neighbours were loud'],
  },
  {
    kind: 'reply',
    slots: { sign: ['a rainbow flag', 'a sign that said love is love', 'a banner my friends made'] },
    parts: [
      [
        b('Did you go to the pride parade?'),
        o('Of course. I carried {sign} the whole way', true),
        b('Love that so much'),
      ],
    ],
    questions: ['What did {A} carry at the pride parade?'],
    noise: ['The parade traffic made me late for dinner'],
  },
  {
    kind: 'multi',
    slots: {
      sport: ['swimming', 'yoga', 'rock climbing', 'tennis'],
      other: ['hiking', 'cycling', 'kayaking'],
    },
    parts: [
      [b('How do you stay so energetic?'), o('I go {sport} three mornings a week before work', true)],
      [b('What did you do this weekend?'), o('We went {other} with the kids, came home exhausted', true)],
    ],
    questions: ['What physical activities does {A} do?', 'What sports does {A} do?'],
    noise: ['I have zero energy this week', 'Work has been exhausting'],
  },
  {
    kind: 'single',
    slots: { country: ['Sweden', 'Ireland', 'Brazil', 'Japan'] },
    parts: [
      [
        b('Where did you grow up again?'),
        o('I moved here from {country} when I was ten', true),
        b('I did not know that!'),
      ],
    ],
    questions: ['Where did {A} move from?', 'Which country is {A} originally from?'],
    noise: ['My kids are growing up so fast'],
  },
  {
    kind: 'open',
    slots: {
      worry: ['my son has been struggling at school', 'my mom has been sick', 'money has been tight'],
      help: ['talking to his teacher', 'calling her every evening', 'a budget spreadsheet'],
    },
    parts: [
      [
        b('You seem a bit down, is everything okay?'),
        o('To be honest {worry}', true),
        b('I am sorry. Is there anything that helps?'),
        o('{help} has helped a lot', true),
      ],
    ],
    questions: [
      'What has {A} been worried about and what helps?',
      'How is {A} coping with what has been worrying her?',
    ],
    noise: ['Everything okay with the car? It made a weird noise'],
  },
  {
    kind: 'reply',
    slots: { place: ['the botanical garden', 'the science museum', 'the aquarium', 'the zoo'] },
    parts: [
      [
        b('Where did you take the kids for the school holiday?'),
        o('{place}, they did not want to leave', true),
      ],
    ],
    questions: ['Where did {A} take the kids during the school holiday?'],
    noise: ['School holiday plans are stressing me out'],
  },
  {
    kind: 'when',
    slots: { item: ['a new car', 'a bike', 'a house'] },
    parts: [[o('Big news, we finally bought {item}!', true), b('Congratulations!! That is huge')]],
    questions: ['When did {A} buy {item}?'],
    noise: ['Big news at work, my manager is leaving'],
  },
  {
    kind: 'single',
    slots: { symbol: ['a tattoo of a sunflower', 'a tattoo of a compass', 'a tattoo of a wave'] },
    parts: [[o('I got {symbol} on my wrist, it reminds me to keep going', true), b('Show me next time!')]],
    questions: ['What tattoo did {A} get?', "What does {A}'s tattoo show?"],
    noise: ['Keep going, you are almost there'],
  },
  {
    kind: 'reply',
    slots: { advice: ['to take it one day at a time', 'to write everything down', 'to ask for help early'] },
    parts: [
      [b('What was the best advice your mentor gave you?'), o('{advice}. I still repeat it to myself', true)],
    ],
    questions: ["What advice did {A}'s mentor give?"],
    noise: ['My mentor at work moved to another team'],
  },
]

/** Small talk with no fact in it, and openers and closers of a session. */
export const CHAT_FILLER: readonly string[] = [
  'Haha totally',
  'That is awesome, I am so happy for you',
  'Same here, it has been a crazy week',
  'Lol yes',
  'Oh wow',
  'I know right?',
  'That makes sense',
  'Sounds like a plan',
  'How are the kids doing?',
  'They are good, growing like weeds',
  'Work has been busy but okay',
  'I need a vacation so badly',
  'The weather has been so nice lately',
  'It rained all weekend here',
  'Did you watch the game?',
  'No, I fell asleep on the couch haha',
  'Thanks for always listening',
  'Of course, that is what friends are for',
  'I have been trying to sleep more',
  'Coffee is keeping me alive',
  'We should get lunch sometime',
  'Totally, next week maybe?',
  'I am so proud of you',
  'That means a lot, thank you',
  'Honestly same',
  'It is hard but we keep going',
  'What are your plans for the weekend?',
  'Nothing much, just relaxing at home',
  'My husband says hi',
  'Tell him I said hi back',
  'I laughed so hard at that',
  'You always make my day',
  'Ugh Mondays',
  'The traffic this morning was terrible',
  'Did you try that new cafe?',
  'Not yet, is it good?',
  'Their pastries are amazing',
  'I have to run, talk soon!',
]

export const CHAT_OPENERS: readonly string[] = [
  'Hey {B}! Good to see you! How have you been?',
  'Hi {B}! Long time no talk',
  'Hey! What is new with you?',
  'Hiii, how was your week?',
]

export const CHAT_CLOSERS: readonly string[] = [
  'Talk to you soon, take care!',
  'Bye! Give the kids a hug from me',
  'Catch you later!',
  'Good night!',
]

export const CHAT_NAMES: readonly [string, string][] = [
  ['Caroline', 'Melanie'],
  ['Jon', 'Gina'],
  ['Maria', 'John'],
  ['Joanna', 'Nate'],
  ['Tim', 'John'],
  ['Audrey', 'Andrew'],
  ['James', 'John'],
  ['Deborah', 'Jolene'],
  ['Evan', 'Sam'],
  ['Calvin', 'Dave'],
  ['Priya', 'Leo'],
  ['Hannah', 'Omar'],
]
