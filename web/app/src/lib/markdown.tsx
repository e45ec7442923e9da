// The message markdown subset, rendered as Preact elements whose text is always text nodes:
// nothing from a message ever reaches innerHTML. Supported: ```code blocks```, `code`,
// **bold**, *italic* and _italic_, [links](https://...), bare http(s) links, mentions written
// <@member_id>, custom emoji :name: (when the community has one of that name), line breaks.

import type { ComponentChildren, VNode } from "preact";

export type RenderContext = {
  /** The display name of a member id, if known. */
  memberName: (id: string) => string | undefined;
  meId: string;
  /** Custom emoji by name: image URLs. */
  emoji: ReadonlyMap<string, string>;
  onMention?: (id: string, target: HTMLElement) => void;
  /** How a group mention (<!here>, <!everyone>) shows; as the text @here, @everyone without it. */
  groupMention?: (name: "here" | "everyone") => ComponentChildren;
};

const INLINE = new RegExp(
  [
    "`([^`\\n]+)`", // 1 code
    "<@([A-Za-z0-9-]{1,64})>", // 2 mention
    "\\[([^\\]\\n]{1,500})\\]\\((https?:\\/\\/[^\\s)]{1,2000})\\)", // 3 text, 4 url
    "(https?:\\/\\/[^\\s<>]*[^\\s<>.,;:!?'\")\\]])", // 5 bare link
    "\\*\\*(?=\\S)([^\\n]*?\\S)\\*\\*", // 6 bold
    "(?<![\\w*])\\*(?=[^\\s*])([^*\\n]*?[^\\s*])\\*(?![\\w*])", // 7 italic
    "(?<![\\w])_(?=[^\\s_])([^_\\n]*?[^\\s_])_(?![\\w])", // 8 italic
    ":([a-z0-9_-]{1,62}):", // 9 custom emoji
    "<!(here|everyone)>", // 10 group mention (EXTENSIONS.md 3)
  ].join("|"),
  "g",
);

const MAX_DEPTH = 4;

/** Renders message text as elements. */
export function renderMarkdown(text: string, ctx: RenderContext): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  const parts = text.split(/```/);
  parts.forEach((part, i) => {
    if (i % 2 === 1 && i < parts.length - 1) {
      // A fenced block: an optional language word on the first line is dropped.
      const body = part.replace(/^[a-zA-Z0-9_+-]*\n/, "").replace(/\n$/, "");
      out.push(
        <pre class="code-block">
          <code>{body}</code>
        </pre>,
      );
      return;
    }
    const chunk = i % 2 === 1 ? "```" + part : part;
    out.push(...inline(chunk, ctx, 0));
  });
  return out;
}

function inline(text: string, ctx: RenderContext, depth: number): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  const re = new RegExp(INLINE.source, "g");
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) pushText(out, text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1] !== undefined) out.push(<code class="code">{m[1]}</code>);
    else if (m[2] !== undefined) out.push(mention(m[2], ctx));
    else if (m[3] !== undefined) out.push(link(m[4], inline(m[3], ctx, MAX_DEPTH)));
    else if (m[5] !== undefined) out.push(link(m[5], [m[5]]));
    else if (m[6] !== undefined) out.push(<strong>{nest(m[6], ctx, depth)}</strong>);
    else if (m[7] !== undefined) out.push(<em>{nest(m[7], ctx, depth)}</em>);
    else if (m[8] !== undefined) out.push(<em>{nest(m[8], ctx, depth)}</em>);
    else if (m[9] !== undefined) out.push(customEmoji(m[9], m[0], ctx));
    else if (m[10] !== undefined) out.push(ctx.groupMention?.(m[10] as "here" | "everyone") ?? "@" + m[10]);
  }
  if (last < text.length) pushText(out, text.slice(last));
  return out;
}

function nest(text: string, ctx: RenderContext, depth: number): ComponentChildren[] {
  return depth >= MAX_DEPTH ? [text] : inline(text, ctx, depth + 1);
}

/** Text with its line breaks as <br>. */
function pushText(out: ComponentChildren[], text: string) {
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (i > 0) out.push(<br />);
    if (line) out.push(line);
  });
}

function link(url: string, children: ComponentChildren[]): VNode {
  return (
    <a href={url} target="_blank" rel="noopener noreferrer nofollow ugc">
      {children}
    </a>
  );
}

function mention(id: string, ctx: RenderContext): VNode {
  const name = ctx.memberName(id);
  const me = id === ctx.meId;
  return (
    <button
      type="button"
      class={me ? "mention mention-me" : "mention"}
      onClick={(e) => ctx.onMention?.(id, e.currentTarget as HTMLElement)}
    >
      @{name ?? "unknown member"}
    </button>
  );
}

function customEmoji(name: string, raw: string, ctx: RenderContext): ComponentChildren {
  const url = ctx.emoji.get(name);
  if (!url) return raw;
  return <img class="custom-emoji" src={url} alt={raw} title={raw} width={22} height={22} />;
}

/**
 * The text as one plain line, as the rendering reads: the markdown's markers gone (bold, italic,
 * code and its fences, a link's brackets and address), mentions by name, custom emoji as their
 * :name:. For what is read out or quoted rather than shown: announcements of new messages,
 * notifications, search results, a reported message. It parses as renderMarkdown does, so an
 * unmatched marker (a lone `*`, an unclosed fence) stays, as it shows.
 */
export function plainText(text: string, memberName: (id: string) => string | undefined): string {
  const parts = text.split(/```/);
  const out = parts.map((part, i) => {
    if (i % 2 === 1 && i < parts.length - 1) {
      // A fenced block, without its language word, set apart from the words around it.
      return " " + part.replace(/^[a-zA-Z0-9_+-]*\n/, "").replace(/\n$/, "") + " ";
    }
    return inlinePlain(i % 2 === 1 ? "```" + part : part, memberName, 0);
  });
  return out.join("").replace(/\s+/g, " ").trim();
}

/** inline() as text: each match by the same pattern, with what its element would show. */
function inlinePlain(text: string, memberName: (id: string) => string | undefined, depth: number): string {
  const nested = (s: string) => (depth >= MAX_DEPTH ? s : inlinePlain(s, memberName, depth + 1));
  return text.replace(new RegExp(INLINE.source, "g"), (raw, ...m: (string | undefined)[]) => {
    if (m[0] !== undefined) return m[0];
    if (m[1] !== undefined) return "@" + (memberName(m[1]) ?? "unknown member");
    if (m[2] !== undefined) return inlinePlain(m[2], memberName, MAX_DEPTH);
    if (m[4] !== undefined) return m[4];
    if (m[5] !== undefined) return nested(m[5]);
    if (m[6] !== undefined) return nested(m[6]);
    if (m[7] !== undefined) return nested(m[7]);
    if (m[9] !== undefined) return "@" + m[9];
    return raw; // a custom emoji shows as its picture with this text, or as this text
  });
}

/** Whether text mentions the member id. */
export function mentions(text: string, id: string): boolean {
  return text.includes(`<@${id}>`);
}

/** Turns the composer's @username into the wire form <@member_id>, for known usernames. */
export function toWire(text: string, idOfUsername: (username: string) => string | undefined): string {
  return text.replace(/(^|[^\w<@])@([a-z0-9_.-]{2,32})/g, (all, pre: string, username: string) => {
    // A trailing dot ends a sentence, not a username.
    const trimmed = username.replace(/\.+$/, "");
    const id = idOfUsername(trimmed);
    return id ? `${pre}<@${id}>${username.slice(trimmed.length)}` : all;
  });
}

/** The wire form back to what a person types, for editing. */
export function fromWire(text: string, usernameOf: (id: string) => string | undefined): string {
  return text.replace(/<@([A-Za-z0-9-]{1,64})>/g, (all, id: string) => {
    const u = usernameOf(id);
    return u ? "@" + u : all;
  });
}
