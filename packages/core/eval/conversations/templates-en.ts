import type { FactTemplate, SmallTalk } from './templates.ts'

/** English facts. {A}: the participant the fact is about; {B}: the other one; other braces: slots. */
export const EN_FACTS: FactTemplate[] = [
  // single: stated once, the question shares its content words
  {
    kind: 'single',
    slots: {
      breed: ['beagle', 'corgi', 'border collie', 'greyhound'],
      dog: ['Biscuit', 'Pepper', 'Mochi', 'Rufus'],
    },
    say: 'We finally adopted a {breed} from the shelter, we named him {dog}.',
    follow: 'No way, send me pictures!',
    ask: ['What breed is the dog {A} adopted?', 'What is the name of the dog {A} adopted from the shelter?'],
    noise: [
      'The dog next door barked all night again.',
      'I walked past the animal shelter on my way to work.',
    ],
  },
  {
    kind: 'single',
    slots: {
      tool: ['sourdough starter', 'pasta machine', 'rice cooker'],
      gift: ['my aunt', 'my brother', 'a neighbour'],
    },
    say: 'I got a {tool} from {gift} and I have used it every weekend since.',
    ask: ['Who gave {A} the {tool}?', 'Where did {A} get the {tool} from?'],
    noise: [
      'Weekends are the only time I get to cook properly.',
      'I keep meaning to clear out the kitchen cupboards.',
    ],
  },
  {
    kind: 'single',
    slots: {
      lang: ['Portuguese', 'Japanese', 'Korean', 'Italian'],
      app: ['evening classes', 'a tutor online', 'a language exchange'],
    },
    say: 'I started learning {lang} with {app}, mostly so I can talk to my partner’s family.',
    ask: ['Which language is {A} learning?', 'Why is {A} learning {lang}?'],
    noise: [
      'Learning anything new after work is exhausting.',
      'My partner’s family is visiting in the spring.',
    ],
  },
  {
    kind: 'single',
    slots: {
      team: ['volleyball', 'five-a-side football', 'ultimate frisbee'],
      day: ['Tuesday', 'Wednesday', 'Thursday'],
    },
    say: 'I joined a {team} team at the community centre, we play every {day} night.',
    ask: ['What team did {A} join at the community centre?', 'Which night does {A} play {team}?'],
    noise: [
      'The community centre is closed for repairs this month.',
      'I am too tired on weeknights to do anything.',
    ],
  },
  {
    kind: 'single',
    slots: { allergy: ['peanuts', 'shellfish', 'sesame'] },
    say: 'Turns out I am allergic to {allergy}, the doctor confirmed it with a skin test.',
    ask: ['What is {A} allergic to?', 'What did the skin test show for {A}?'],
    noise: [
      'I have a doctor appointment next week, just a check-up.',
      'That restaurant puts nuts in everything.',
    ],
  },
  {
    kind: 'single',
    slots: { plant: ['fig tree', 'lemon tree', 'monstera', 'olive tree'] },
    say: 'The {plant} on my balcony finally has new leaves after I moved it to the sunny corner.',
    ask: ['What plant is growing on {A}’s balcony?', 'Where did {A} move the {plant}?'],
    noise: ['My balcony is tiny, barely room for a chair.', 'It has been sunny all week here.'],
  },
  // reply: the turn holding the question's words is a question; the answer is its reply
  {
    kind: 'reply',
    slots: { company: ['Northwind', 'Bluefield', 'Helix Labs', 'Orchard Health'] },
    lead: 'Did you ever hear back about the interview at {company}?',
    say: 'Yes! They made me an offer yesterday, I said yes on the spot.',
    ask: [
      'What happened with {A}’s interview at {company}?',
      'Did {A} hear back from {company} about the interview?',
    ],
    noise: ['Interviews make me so nervous, I never sleep the night before.'],
  },
  {
    kind: 'reply',
    slots: { event: ['pottery workshop', 'salsa class', 'photography course'] },
    lead: 'So how was the {event} on Saturday?',
    say: 'Honestly a bit disappointing, the teacher spent most of the time on her own project.',
    ask: ['How was the {event} {A} went to?', 'What did {A} think of the {event}?'],
    noise: ['Saturday was so busy, I did not sit down once.'],
  },
  {
    kind: 'reply',
    slots: { thing: ['leak in the bathroom', 'broken heater', 'noisy fridge'] },
    lead: 'Did the landlord ever fix the {thing}?',
    say: 'He sent someone round on Friday, it took ten minutes and now it works perfectly.',
    ask: ['Did the landlord fix the {thing} at {A}’s place?', 'What happened with the {thing} {A} had?'],
    noise: ['My landlord never answers his phone.'],
  },
  {
    kind: 'reply',
    slots: { race: ['10k', 'half marathon', 'charity run'] },
    lead: 'How did the {race} go in the end?',
    say: 'Finished in just under two hours, my knees hate me but I am so proud.',
    ask: ['How did {A}’s {race} go?', 'What time did {A} finish the {race} in?'],
    noise: ['I keep saying I will start running again.', 'The end of the month is always chaos.'],
  },
  {
    kind: 'reply',
    slots: { gift: ['birthday present for your mum', 'anniversary gift', 'housewarming present'] },
    lead: 'Did you find a {gift} in the end?',
    say: 'I went with a framed print of the harbour where she grew up, she cried a little.',
    ask: ['What did {A} choose as the {gift}?', 'Did {A} find a {gift}?'],
    noise: ['I am terrible at choosing presents.', 'My mum called me twice today.'],
  },
  {
    kind: 'reply',
    slots: { exam: ['driving test', 'citizenship test', 'accounting exam'] },
    lead: 'Any news about your {exam}?',
    say: 'Passed on the second attempt! The examiner said my parking was flawless.',
    ask: ['Did {A} pass the {exam}?', 'What news did {A} have about the {exam}?'],
    noise: ['There is always news about exams in the paper this time of year.'],
  },
  // speaker: both say a parallel thing, the question names one of them
  {
    kind: 'speaker',
    slots: {
      book: ['The Overstory', 'Piranesi', 'Klara and the Sun', 'Educated', 'Project Hail Mary', 'Circe'],
    },
    say: 'I am reading {book} at the moment, I cannot put it down.',
    other: 'I am reading {book} right now, slow going but good.',
    ask: ['What book is {A} reading at the moment?', 'Which book is {A} reading?'],
  },
  {
    kind: 'speaker',
    slots: { city: ['Lisbon', 'Porto', 'Valencia', 'Krakow', 'Ljubljana', 'Tallinn'] },
    say: 'For the summer holiday I booked a week in {city}.',
    other: 'Our summer holiday is going to be {city}, we booked it last night.',
    ask: ['Where is {A} going for the summer holiday?', 'Which city did {A} book for the summer?'],
  },
  {
    kind: 'speaker',
    slots: {
      dish: [
        'lentil soup',
        'chicken curry',
        'mushroom risotto',
        'fish tacos',
        'vegetable lasagne',
        'pad thai',
      ],
    },
    say: 'My go-to dinner when I am tired is {dish}.',
    other: 'When I am too tired to think, dinner is always {dish}.',
    ask: ['What does {A} make for dinner when tired?', 'What is {A}’s go-to dinner?'],
  },
  {
    kind: 'speaker',
    slots: { show: ['Severance', 'The Bear', 'Slow Horses', 'Shogun', 'Bluey', 'Succession'] },
    say: 'I started watching {show} last night and watched four episodes in a row.',
    other: 'We are watching {show} in the evenings, one episode at a time.',
    ask: ['Which show is {A} watching?', 'What series did {A} start watching?'],
  },
  {
    kind: 'speaker',
    slots: { instrument: ['ukulele', 'piano', 'drums', 'violin', 'bass guitar', 'saxophone'] },
    say: 'I have been practising the {instrument} every morning before work.',
    other: 'I practise the {instrument} on Sundays, when the neighbours are out.',
    ask: ['What instrument does {A} practise?', 'Which instrument is {A} practising before work?'],
  },
  // when: the answer holds a time expression, noise shares its words without one
  {
    kind: 'when',
    slots: {
      place: ['Lisbon', 'Leeds', 'Rotterdam', 'Montreal'],
      time: ['two weeks ago', 'last month', 'in early March', 'last Friday'],
    },
    say: 'I moved into the new flat in {place} {time}, still living out of boxes.',
    ask: ['When did {A} move to {place}?', 'When did {A} move into the new flat?'],
    noise: [
      'Moving flats is the worst, I never want to do it again.',
      'I love the idea of living in {place} one day.',
    ],
  },
  {
    kind: 'when',
    slots: {
      job: ['the bakery', 'the architecture firm', 'the hospital lab', 'the bookshop'],
      time: ['last Monday', 'yesterday', 'on the first of the month', 'three days ago'],
    },
    say: 'I started my new job at {job} {time}, everyone is lovely.',
    ask: ['When did {A} start the new job at {job}?', 'When did {A} begin working at {job}?'],
    noise: [
      'A new job always feels strange for the first weeks.',
      'My cousin works at {job} too, small world.',
    ],
  },
  {
    kind: 'when',
    slots: { who: ['sister', 'best friend', 'brother'], time: ['last weekend', 'on Sunday', 'a week ago'] },
    say: 'My {who} got engaged {time}, the whole family is thrilled.',
    ask: ['When did {A}’s {who} get engaged?'],
    noise: [
      'My {who} is impossible to buy presents for.',
      'The whole family is coming for dinner on the holiday.',
    ],
  },
  {
    kind: 'when',
    slots: {
      car: ['an old Volvo', 'a used Golf', 'an electric Fiat'],
      time: ['yesterday', 'last Thursday', 'two days ago'],
    },
    say: 'I bought {car} {time}, no more buses for me.',
    ask: ['When did {A} buy the car?', 'When did {A} get {car}?'],
    noise: ['The buses were late again this morning.', 'Car insurance is so expensive now.'],
  },
  // howlong: a duration stated in the answer
  {
    kind: 'howlong',
    slots: {
      hobby: ['climbing', 'knitting', 'swimming', 'chess'],
      n: ['six months', 'two years', 'about a year', 'three months'],
    },
    say: 'I have been doing {hobby} for {n} now and it really helps with stress.',
    ask: ['How long has {A} been doing {hobby}?', 'For how long has {A} been into {hobby}?'],
    noise: ['Stress at work has been unreal lately.', 'My friend tried to get me into {hobby} once.'],
  },
  {
    kind: 'howlong',
    slots: { n: ['five years', 'eight months', 'almost a decade', 'two and a half years'] },
    say: 'We have been together for {n}, I still cannot believe it.',
    ask: ['How long has {A} been with their partner?', 'How long have {A} and their partner been together?'],
    noise: ['My partner and I argued about the dishes again.'],
  },
  {
    kind: 'howlong',
    slots: {
      n: ['four hours', 'ninety minutes', 'six hours'],
      trip: ['train to the coast', 'bus to the airport', 'ferry to the island'],
    },
    say: 'The {trip} took {n}, I finished a whole book on the way.',
    ask: ['How long did the {trip} take {A}?', 'How long was {A}’s {trip}?'],
    noise: ['I would love to live on the coast.', 'Trains are always delayed on the weekend.'],
  },
  // date: the question names the day of the message
  {
    kind: 'date',
    slots: { thing: ['concert', 'match', 'gallery opening', 'comedy show'] },
    say: 'The {thing} tonight was incredible, I have not laughed or shouted that much in years.',
    ask: ['What did {A} say about the {thing} on {date}?', 'How was the {thing} {A} went to on {date}?'],
    noise: [
      'Tickets for the {thing} sold out in minutes.',
      'I might go to a {thing} next month if I can get tickets.',
      'The {thing} was fine, nothing special.',
    ],
  },
  {
    kind: 'date',
    slots: { food: ['dumplings', 'paella', 'banana bread', 'ramen'] },
    say: 'Made {food} from scratch today, it took all afternoon but worth it.',
    ask: ['What did {A} cook on {date}?', 'What did {A} make from scratch on {date}?'],
    noise: [
      'I could eat {food} every day.',
      'The {food} at the market stall was overpriced.',
      'Cooking from scratch takes too long for me.',
    ],
  },
  // multi: the answer spans two sessions
  {
    kind: 'multi',
    slots: {
      course: ['pottery course', 'first aid course', 'coding bootcamp'],
      place: ['the arts centre', 'the library', 'the college'],
      day: ['Thursdays', 'Mondays', 'Saturday mornings'],
    },
    say: 'I signed up for a {course} at {place}.',
    say2: 'The {course} moved to {day}, which suits me much better.',
    ask: ['Where and when does {A}’s {course} take place?'],
    noise: ['I keep signing up for things and never going.'],
  },
  {
    kind: 'multi',
    slots: {
      pet: ['cat', 'rabbit', 'parrot'],
      vet: ['an ear infection', 'a sprained paw', 'a tooth problem'],
    },
    say: 'Took the {pet} to the vet, it is {vet}.',
    say2: 'The {pet} is completely better now, the medicine worked in a week.',
    ask: ['What was wrong with {A}’s {pet} and did it get better?'],
    noise: ['Vets are so expensive, it is ridiculous.'],
  },
  {
    kind: 'multi',
    slots: { room: ['kitchen', 'bathroom', 'spare room'], colour: ['sage green', 'deep blue', 'terracotta'] },
    say: 'We are finally renovating the {room}, the builders start next week.',
    say2: 'The {room} is done, we painted it {colour} in the end.',
    ask: ['What did {A} renovate and what colour did it end up?'],
    noise: ['Builders always take twice as long as they say.'],
  },
  // paraphrase: the question shares few words with the answer
  {
    kind: 'paraphrase',
    slots: { x: ['cello', 'harp', 'accordion'] },
    say: 'Bought a second-hand {x} and I practise scales every evening.',
    ask: ['Which musical instrument has {A} picked up recently?'],
    noise: ['I never had the patience for music lessons.'],
  },
  {
    kind: 'paraphrase',
    slots: { x: ['vegetarian', 'vegan', 'pescatarian'] },
    say: 'I have stopped eating meat completely, I am {x} now.',
    ask: ['Has {A} changed their diet?', 'What does {A} no longer eat?'],
    noise: ['The new diet trends are exhausting to follow.'],
  },
  {
    kind: 'paraphrase',
    slots: { x: ['Anna', 'Lucia', 'Ella'] },
    say: 'Our daughter arrived on Tuesday, we called her {x}!',
    ask: ['Did {A} become a parent?', 'What is the name of {A}’s baby?'],
    noise: ['My nephew turns three next month.'],
  },
  {
    kind: 'paraphrase',
    slots: { x: ['Denver', 'Glasgow', 'Auckland'] },
    say: 'I handed in my notice, I am relocating to {x} for my partner’s work.',
    ask: ['Is {A} quitting their job?', 'Why is {A} leaving their position?'],
    noise: ['Work has been quiet this week.'],
  },
  {
    kind: 'paraphrase',
    slots: { x: ['wrist', 'ankle', 'collarbone'] },
    say: 'Slipped on the ice and fractured my {x}, it is in a cast for six weeks.',
    ask: ['Did {A} get hurt?', 'What injury does {A} have?'],
    noise: ['The ice on the pavement this morning was terrible.'],
  },
  {
    kind: 'paraphrase',
    slots: { x: ['a promotion', 'a raise', 'team lead'] },
    say: 'My manager called me in and I got {x}, starting next quarter.',
    ask: ['Is {A} doing well in their career?', 'What good work news did {A} have?'],
    noise: ['My manager is on holiday so it is quiet.'],
  },
]

/** English small talk, with words the facts use, so matching a word is not enough. */
export const EN_SMALL_TALK: SmallTalk = {
  openers: [
    'Hey, how are you?',
    'Morning! Got a minute?',
    'Hi, long time no talk!',
    'Evening! How was your day?',
    'Hey you, what is new?',
  ],
  lines: [
    'Not bad, a bit tired from {activity}.',
    'Ha, that is so typical.',
    'I know what you mean, same here.',
    'The weather has been {weather} all week.',
    'I was thinking about {topic} earlier today.',
    'Did you see the news about {topic}?',
    'We should meet up for {meal} soon.',
    'My {relative} says hi, by the way.',
    'I need a holiday, honestly.',
    'Work is {work} at the moment.',
    'That reminds me, I still owe you {owe}.',
    'Oh nice, tell me more!',
    'Sounds lovely.',
    'Sorry, I only just saw your message.',
    'I spent the whole evening {activity}.',
    'The traffic on the way home was awful.',
    'What are you up to this weekend?',
    'Probably just {activity}, nothing exciting.',
    'Haha, fair enough.',
    'I really need to sleep more.',
  ],
  closers: ['Anyway, I have to run. Talk soon!', 'Good night!', 'Catch you later.', 'Speak tomorrow!'],
  slots: {
    activity: [
      'cleaning the flat',
      'running errands',
      'the gym',
      'cooking',
      'watching films',
      'work stuff',
      'gardening',
      'a long walk',
    ],
    weather: ['grey', 'lovely', 'freezing', 'rainy', 'weirdly warm'],
    topic: [
      'the new train line',
      'the election',
      'the football',
      'house prices',
      'that new cafe',
      'the festival',
    ],
    meal: ['coffee', 'lunch', 'brunch', 'dinner', 'a drink'],
    relative: ['mum', 'dad', 'sister', 'brother', 'gran'],
    work: ['hectic', 'quiet', 'fine', 'a lot', 'stressful'],
    owe: ['a coffee', 'that book', 'ten pounds', 'a phone call'],
  },
}

export const EN_NAMES: [string, string][] = [
  ['Priya', 'Tom'],
  ['Marco', 'Hannah'],
  ['Aisha', 'Daniel'],
  ['Sofia', 'Liam'],
  ['Yusuf', 'Grace'],
  ['Elena', 'Ben'],
  ['Kofi', 'Maya'],
  ['Nina', 'Oscar'],
  ['Ravi', 'Chloe'],
  ['Lena', 'Sam'],
  ['Diego', 'Freya'],
  ['Mei', 'Jonas'],
  ['Tariq', 'Isla'],
  ['Zoe', 'Felix'],
]
