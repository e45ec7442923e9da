// The standard emoji by shortcode (:tada: 🎉), loaded on first use as a chunk of its own
// (lib/shortcodes.ts): Slack's names (iamcal's set) and GitHub's, from emojibase-data, about
// 2,500 names for 1,900 emoji. Where the two name different emoji, Slack's wins. The build
// writes them compact (shortcodeData.ts, build/shortcodes.go).

import { SHORTCODES } from "./shortcodeData";

/** Shortcode (without its colons) to the emoji. */
export function buildTable(): Map<string, string> {
  const table = new Map<string, string>();
  let first = 0;
  for (const line of SHORTCODES.split("\n")) {
    if (!line) continue;
    const [code, ...names] = line.split(" ");
    const [distance, ...others] = code.split("-");
    first += distance ? parseInt(distance, 16) : 1;
    const char = emojiOf([first, ...others.map((h) => parseInt(h, 16))]);
    for (const name of names) table.set(name, char);
  }
  return table;
}

/**
 * The emoji of its code points. The sets leave out the variation selector of a lone character
 * whose default look is text (❤ U+2764): it is added, so that it shows as the emoji (❤️).
 */
function emojiOf(points: number[]): string {
  const s = String.fromCodePoint(...points);
  return points.length === 1 && !/\p{Emoji_Presentation}/u.test(s) ? s + "\uFE0F" : s;
}
