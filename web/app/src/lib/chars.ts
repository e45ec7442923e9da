// Text limits counted as the server counts them. The server counts characters as Unicode code
// points (Go's utf8.RuneCountInString) and a few limits in UTF-8 bytes, while a JavaScript
// string's length (and HTML's maxLength) counts UTF-16 code units, in which most emoji are
// two: a display name of 40 emoji is 40 characters to the server and 80 to `.length`. Every
// limit the client checks goes through here (docs/decisions.md, "The browser client").

/** The number of characters in s as the server counts them: Unicode code points. */
export function chars(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point; a lone surrogate, which the
    // wire encoding turns into U+FFFD, is one too.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The number of bytes s takes in UTF-8, as the server counts byte limits (a lone surrogate
 * is sent as U+FFFD, 3 bytes). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** A limit of the server's: at most max characters (code points), or bytes of UTF-8. */
export type Limit = { max: number; unit: "characters" | "bytes"; what: string };

const characters = (what: string, max: number): Limit => ({ max, unit: "characters", what });
const bytes = (what: string, max: number): Limit => ({ max, unit: "bytes", what });

/** The server's limits on what people type (engine/names.go; docs/decisions.md, "Limits we
 * chose"; API.md). */
export const LIMITS = {
  displayName: characters("a display name", 64),
  username: characters("a username", 32),
  bio: characters("a bio", 1024),
  statusText: characters("a status", 128),
  statusEmoji: bytes("a status emoji", 64),
  communityName: characters("a community name", 64),
  description: characters("a description", 4000),
  joinQuestion: characters("a join question", 200),
  joinAnswer: characters("an answer", 1000),
  inviteCode: characters("an invite code", 64),
  // As typed: the server also allows at most 80 once normalized, which it checks itself
  // (normalizing follows Go's Unicode tables, which the client does not repeat).
  channelName: characters("a channel name as typed", 320),
  channelTopic: characters("a topic", 1024),
  channelCategory: characters("a category", 80),
  roleName: characters("a role name", 32),
  messageText: characters("a message", 8000),
  reportNote: characters("a note", 1000),
  reason: characters("a reason", 500),
  blockedWord: characters("a blocked word", 50),
  searchQuery: characters("a search", 1000),
  pluginSource: bytes("a plugin", 256_000),
} satisfies Record<string, Limit>;

/** How long s is in the limit's unit. */
export function measure(s: string, limit: Limit): number {
  return limit.unit === "bytes" ? utf8Bytes(s) : chars(s);
}

/** How far s goes past the limit: 0 when it is within. */
export function excess(s: string, limit: Limit): number {
  return Math.max(0, measure(s, limit) - limit.max);
}

/** Says what is wrong with s, or "" when it is within the limit: "3 characters too many: a
 * display name is at most 64." */
export function limitError(s: string, limit: Limit): string {
  const over = excess(s, limit);
  if (over === 0) return "";
  const unit = over === 1 ? limit.unit.slice(0, -1) : limit.unit;
  const max = limit.max.toLocaleString("en-US") + (limit.unit === "bytes" ? " bytes" : "");
  return `${over.toLocaleString("en-US")} ${unit} too many: ${limit.what} is at most ${max}.`;
}
