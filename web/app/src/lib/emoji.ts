// The unicode emoji the picker offers, by category, each with the words it is found by. A
// curated set (a full Unicode table would double the bundle); any emoji typed in the composer
// works as well.

export type EmojiEntry = { char: string; name: string };
export type EmojiCategory = { name: string; emoji: EmojiEntry[] };

const TABLE: [string, string][] = [
  [
    "Smileys",
    "😀 grinning|😃 smiley|😄 smile|😁 grin|😆 laughing|😅 sweat smile|🤣 rofl|😂 joy tears|🙂 slight smile|🙃 upside down|😉 wink|😊 blush|😇 innocent halo|🥰 smiling hearts|😍 heart eyes|🤩 star struck|😘 kiss|😋 yum|😛 tongue|😜 wink tongue|🤪 zany|🤑 money|🤗 hug|🤭 hand over mouth|🤫 shush|🤔 thinking|🤐 zipper mouth|🤨 raised eyebrow|😐 neutral|😑 expressionless|😶 no mouth|😏 smirk|😒 unamused|🙄 eye roll|😬 grimace|😌 relieved|😔 pensive|😪 sleepy|😴 sleeping|😷 mask|🤒 sick thermometer|🤕 hurt bandage|🤢 nauseated|🤧 sneeze|🥵 hot|🥶 cold|🥴 woozy|😵 dizzy|🤯 mind blown|🤠 cowboy|🥳 party|😎 sunglasses cool|🤓 nerd|🧐 monocle|😕 confused|😟 worried|🙁 frown|😮 open mouth|😯 hushed|😲 astonished|😳 flushed|🥺 pleading|😦 frowning|😧 anguished|😨 fearful|😰 anxious sweat|😥 sad relieved|😢 cry|😭 sob|😱 scream|😖 confounded|😣 persevere|😞 disappointed|😓 sweat|😩 weary|😫 tired|🥱 yawn|😤 triumph|😡 rage|😠 angry|🤬 cursing|😈 smiling imp|💀 skull|💩 poop|🤡 clown|👻 ghost|👽 alien|🤖 robot|😺 cat smile|😹 cat joy|😻 cat heart eyes",
  ],
  [
    "People",
    "👋 wave|🤚 raised back of hand|✋ raised hand|🖖 vulcan|👌 ok hand|🤌 pinched fingers|✌️ victory peace|🤞 crossed fingers|🤟 love you|🤘 rock horns|🤙 call me|👈 point left|👉 point right|👆 point up|👇 point down|☝️ index up|👍 thumbs up +1|👎 thumbs down -1|✊ fist|👊 punch|🤛 left fist|🤜 right fist|👏 clap|🙌 raised hands|👐 open hands|🤲 palms up|🤝 handshake|🙏 pray thanks|✍️ writing|💪 muscle strong|🧠 brain|👀 eyes|👁️ eye|👅 tongue|👄 mouth|👶 baby|🧒 child|👦 boy|👧 girl|🧑 person|👨 man|👩 woman|🧓 older person|🙋 raising hand|🙇 bow|🤦 facepalm|🤷 shrug|🧑‍💻 technologist|🕵️ detective|🥷 ninja|🦸 superhero|🧙 mage|🏃 running|💃 dancer|🕺 dancing man",
  ],
  [
    "Nature",
    "🐶 dog|🐱 cat|🐭 mouse|🐹 hamster|🐰 rabbit|🦊 fox|🐻 bear|🐼 panda|🐨 koala|🐯 tiger|🦁 lion|🐮 cow|🐷 pig|🐸 frog|🐵 monkey|🐔 chicken|🐧 penguin|🐦 bird|🦆 duck|🦉 owl|🦇 bat|🐺 wolf|🐴 horse|🦄 unicorn|🐝 bee|🐛 bug|🦋 butterfly|🐌 snail|🐞 ladybug|🐢 turtle|🐍 snake|🐙 octopus|🦀 crab|🐠 fish|🐬 dolphin|🐳 whale|🦈 shark|🌵 cactus|🎄 christmas tree|🌲 evergreen|🌳 tree|🌴 palm|🌱 seedling|🌿 herb|🍀 four leaf clover|🍁 maple leaf|🍂 fallen leaf|🌸 cherry blossom|🌹 rose|🌻 sunflower|🌼 blossom|🌷 tulip|🌞 sun face|🌝 full moon face|🌙 crescent moon|⭐ star|🌟 glowing star|✨ sparkles|⚡ zap lightning|🔥 fire|🌈 rainbow|☀️ sunny|⛅ partly sunny|☁️ cloud|🌧️ rain|⛄ snowman|❄️ snowflake|🌊 wave water",
  ],
  [
    "Food",
    "🍏 green apple|🍎 apple|🍐 pear|🍊 orange|🍋 lemon|🍌 banana|🍉 watermelon|🍇 grapes|🍓 strawberry|🍒 cherries|🍑 peach|🥭 mango|🍍 pineapple|🥥 coconut|🥝 kiwi|🍅 tomato|🥑 avocado|🥦 broccoli|🌶️ hot pepper|🌽 corn|🥕 carrot|🥐 croissant|🍞 bread|🧀 cheese|🥚 egg|🍳 cooking|🥞 pancakes|🥓 bacon|🍔 hamburger|🍟 fries|🍕 pizza|🌭 hotdog|🌮 taco|🌯 burrito|🍝 spaghetti|🍜 ramen|🍣 sushi|🍱 bento|🍚 rice|🍦 ice cream|🍩 doughnut|🍪 cookie|🎂 birthday cake|🍰 cake|🧁 cupcake|🍫 chocolate|🍬 candy|🍿 popcorn|☕ coffee|🍵 tea|🍺 beer|🍻 beers cheers|🍷 wine|🥂 champagne toast|🍹 cocktail tropical|🥤 soda cup",
  ],
  [
    "Activities",
    "⚽ soccer football|🏀 basketball|🏈 american football|⚾ baseball|🎾 tennis|🏐 volleyball|🏓 ping pong|🏸 badminton|🥅 goal|⛳ golf|🎣 fishing|🥊 boxing|🎿 ski|🏂 snowboard|🏋️ weight lifting|🚴 cycling|🏆 trophy|🥇 gold medal first|🥈 silver medal|🥉 bronze medal|🏅 medal|🎖️ military medal|🎫 ticket|🎪 circus|🎭 theater|🎨 art palette|🎬 clapper film|🎤 microphone|🎧 headphones|🎼 score music|🎹 piano|🥁 drum|🎷 saxophone|🎺 trumpet|🎸 guitar|🎻 violin|🎲 dice game|♟️ chess|🎯 bullseye dart|🎳 bowling|🎮 video game|🧩 puzzle|🎉 tada party|🎊 confetti|🎈 balloon|🎁 gift present|🎀 ribbon",
  ],
  [
    "Travel",
    "🚗 car|🚕 taxi|🚌 bus|🏎️ racing car|🚓 police car|🚑 ambulance|🚒 fire engine|🚚 truck|🚲 bicycle|🛴 scooter|🏍️ motorcycle|🚨 siren|🚄 train fast|🚆 train|✈️ airplane|🛫 departure|🛬 arrival|🚀 rocket|🛸 ufo|🚁 helicopter|⛵ sailboat|🚢 ship|⚓ anchor|🗺️ map|🧭 compass|🏔️ mountain snow|⛰️ mountain|🌋 volcano|🏕️ camping|🏖️ beach|🏝️ island|🏠 house home|🏡 garden house|🏢 office building|🏥 hospital|🏦 bank|🏫 school|🏰 castle|🗼 tower|🗽 statue of liberty|⛪ church|🌃 night|🌅 sunrise|🌉 bridge night",
  ],
  [
    "Objects",
    "⌚ watch|📱 phone mobile|💻 laptop computer|⌨️ keyboard|🖥️ desktop|🖨️ printer|🖱️ mouse computer|💾 floppy save|💿 cd|📷 camera|🎥 movie camera|📺 tv|📻 radio|⏰ alarm clock|⏳ hourglass|🔋 battery|🔌 plug|💡 bulb idea|🔦 flashlight|🕯️ candle|🧯 extinguisher|💸 money wings|💵 dollar|💰 moneybag|💳 credit card|💎 gem|🔧 wrench|🔨 hammer|🛠️ tools|⚙️ gear|🧰 toolbox|🧲 magnet|🔬 microscope|🔭 telescope|💊 pill|🧪 test tube|🧬 dna|🔑 key|🔒 lock|🔓 unlock|🚪 door|🛏️ bed|📦 package box|📫 mailbox|✉️ envelope|📧 email|📝 memo note|📄 page|📅 date calendar|📆 calendar|📈 chart up|📉 chart down|📊 bar chart|📋 clipboard|📌 pushpin|📎 paperclip|✂️ scissors|🗑️ wastebasket trash|📚 books|📖 book open|🔖 bookmark|🏷️ label|🔍 search|🔗 link|🧵 thread",
  ],
  [
    "Symbols",
    "❤️ heart red|🧡 orange heart|💛 yellow heart|💚 green heart|💙 blue heart|💜 purple heart|🖤 black heart|🤍 white heart|💔 broken heart|💕 two hearts|💖 sparkling heart|💯 hundred|💢 anger|💥 boom collision|💫 dizzy star|💬 speech bubble|💭 thought bubble|💤 zzz sleep|✅ check mark done|☑️ ballot check|✔️ heavy check|❌ cross x|❎ cross mark button|➕ plus|➖ minus|➗ divide|❓ question|❔ white question|❗ exclamation|‼️ double exclamation|⚠️ warning|🚫 prohibited|⛔ no entry|🔴 red circle|🟠 orange circle|🟡 yellow circle|🟢 green circle|🔵 blue circle|🟣 purple circle|⚫ black circle|⚪ white circle|🔺 red triangle|🔻 red triangle down|🔸 orange diamond|🔹 blue diamond|⬆️ arrow up|⬇️ arrow down|⬅️ arrow left|➡️ arrow right|🔄 arrows cycle|🔁 repeat|🆕 new|🆗 ok button|🆒 cool button|🆙 up button|🔔 bell|🔕 no bell|🎵 music note|🏁 checkered flag|🚩 red flag|🏳️ white flag|🏴 black flag",
  ],
];

export const EMOJI: EmojiCategory[] = TABLE.map(([name, list]) => ({
  name,
  emoji: list.split("|").map((item) => {
    const i = item.indexOf(" ");
    return { char: item.slice(0, i), name: item.slice(i + 1) };
  }),
}));

/** The emoji whose words start with query (every word of the query must match one). */
export function searchEmoji(query: string): EmojiEntry[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const out: EmojiEntry[] = [];
  for (const cat of EMOJI) {
    for (const e of cat.emoji) {
      const names = e.name.split(" ");
      if (words.every((w) => names.some((n) => n.startsWith(w)))) out.push(e);
    }
  }
  return out;
}

/** The emoji most people react with, offered first. */
export const QUICK_REACTIONS = ["👍", "❤️", "😂", "🎉", "😮", "🙏"];

/** The words of a unicode emoji in the set, or the emoji itself. */
export function emojiName(char: string): string {
  for (const cat of EMOJI) for (const e of cat.emoji) if (e.char === char) return e.name;
  return char;
}
