// The standard emoji by shortcode (:tada: 🎉), loaded on first use as a chunk of its own
// (lib/shortcodes.ts): Slack's names (iamcal's set) and GitHub's, from emojibase-data, about
// 2,500 names for 1,900 emoji. Where the two name different emoji, Slack's wins.

import github from "emojibase-data/en/shortcodes/github.json";
import slack from "emojibase-data/en/shortcodes/iamcal.json";

/** Shortcode (without its colons) to the emoji, in the order of the sets. */
export function buildTable(): Map<string, string> {
  const table = new Map<string, string>();
  for (const set of [slack, github] as Record<string, string | string[]>[]) {
    for (const [hex, names] of Object.entries(set)) {
      const char = emojiOf(hex);
      for (const name of typeof names === "string" ? [names] : names) if (!table.has(name)) table.set(name, char);
    }
  }
  return table;
}

/**
 * The emoji of an emojibase hexcode ("1F389", "1F3F3-FE0F-200D-1F308"). The sets leave out the
 * variation selector of a lone character whose default look is text (❤ U+2764): it is added, so
 * that it shows as the emoji (❤️).
 */
function emojiOf(hex: string): string {
  const points = hex.split("-").map((h) => parseInt(h, 16));
  const s = String.fromCodePoint(...points);
  return points.length === 1 && !/\p{Emoji_Presentation}/u.test(s) ? s + "\uFE0F" : s;
}
