// Standard emoji shortcodes (:tada:, :+1:, :smile:): the table, loaded on first use (its data is
// ~14 KB gzipped, in a chunk of its own), and the search behind the composer's `:` completion.

import { EMOJI, QUICK_REACTIONS } from "./emoji";
import { Lazy } from "./lazy";

/** Shortcode (without colons) to the emoji. */
export type ShortcodeTable = ReadonlyMap<string, string>;

export const shortcodes = new Lazy(
  () => import("./shortcodeTable"),
  (m): ShortcodeTable => m.buildTable(),
);

/** A name a completion offers: a standard emoji (char) or one of the community's (url). */
export type EmojiMatch = { name: string; char?: string; url?: string };

const bare = (s: string) => s.replace(/\uFE0F/g, "");
/** The emoji most people use (the picker's quick reactions), then the picker's curated set. */
const quick = new Set(QUICK_REACTIONS.map(bare));
const curated = new Set(EMOJI.flatMap((c) => c.emoji.map((e) => bare(e.char))));

/**
 * The emoji whose name has query in it, best first: a name that starts with it before one with
 * a word (after "_" or "-") that does, before any other; then the most used emoji (the quick
 * reactions), the community's own, the picker's set, the rest; then the shorter name. One name
 * per emoji (:+1: and :thumbsup: are one). query is lower case, without the colon.
 */
export function searchShortcodes(query: string, table: ShortcodeTable | undefined, custom: ReadonlyMap<string, string>, limit: number): EmojiMatch[] {
  const q = query.toLowerCase();
  if (!q) return [];
  type Scored = EmojiMatch & { kind: number; tier: number };
  const found: Scored[] = [];
  const kindOf = (name: string) => (name.startsWith(q) ? 0 : name.split(/[_-]/).some((w) => w.startsWith(q)) ? 1 : name.includes(q) ? 2 : -1);
  for (const [name, url] of custom) {
    const kind = kindOf(name);
    if (kind >= 0) found.push({ name, url, kind, tier: 1 });
  }
  for (const [name, char] of table ?? []) {
    const kind = kindOf(name);
    if (kind < 0) continue;
    const b = bare(char);
    found.push({ name, char, kind, tier: quick.has(b) ? 0 : curated.has(b) ? 2 : 3 });
  }
  found.sort((a, b) => a.kind - b.kind || a.tier - b.tier || a.name.length - b.name.length || (a.name < b.name ? -1 : 1));
  const seen = new Set<string>();
  const out: EmojiMatch[] = [];
  for (const f of found) {
    const key = f.char ? bare(f.char) : ":" + f.name;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f.url ? { name: f.name, url: f.url } : { name: f.name, char: f.char });
    if (out.length === limit) break;
  }
  return out;
}
