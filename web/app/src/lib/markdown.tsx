// Message markdown as people write it in a chat, parsed by markdown-it and rendered as Preact
// elements whose text is always text nodes: nothing from a message ever reaches innerHTML.
//
// What it reads: **bold**, *italic* and _italic_, ~~strikethrough~~, `code`, fenced code blocks
// (```js, highlighted, with a copy button), > block quotes, - bulleted and 1. numbered lists,
// # headings, --- rules, [links](https://...) and bare http(s) links and e-mail addresses,
// Discord's ||spoilers||, line breaks as typed, and the client's own inline rules (INLINE_RULES):
// mentions written <@member_id>, custom emoji :name: (when the community has one of that name)
// and standard emoji shortcodes (:tada:).
//
// What it refuses: HTML (shown as typed), pictures (![alt](url) is a link), links to anything
// but http, https and mailto (a javascript: link stays text), character references (&copy;
// stays as typed: lib/entities.ts), indented code blocks and setext headings (text indented or
// underlined in a chat is text) and tables. Nesting stops at 20 levels, and every construct
// markdown-it parses in linear time, so no message can hold up the page that shows it.

import MarkdownIt, { type MarkdownIt as Parser, type StateInline, type Token } from "markdown-it";
import type { ComponentChildren, VNode } from "preact";
import { CodeBlock, Spoiler, StandardEmoji } from "./markdownParts";

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

type MemberName = (id: string) => string | undefined;

/**
 * A piece of text the client gives a meaning to, beyond markdown: the parser turns each match
 * of pattern (which starts with "<" or ":", where markdown-it's text stops) into a token of the
 * rule's name, which renders and reads as the rule says. Not inside code; inside a link, render
 * gets inLink and makes nothing one can click. A new kind is one more entry here.
 */
export type InlineRule = {
  name: string;
  pattern: RegExp;
  render: (m: readonly string[], ctx: RenderContext, inLink: boolean) => ComponentChildren;
  /** What plainText reads for it. */
  plain: (m: readonly string[], memberName: MemberName) => string;
};

export const INLINE_RULES: readonly InlineRule[] = [
  {
    name: "mention",
    pattern: /<@([A-Za-z0-9-]{1,64})>/,
    render: (m, ctx, inLink) => mention(m[1], ctx, inLink),
    plain: (m, memberName) => "@" + (memberName(m[1]) ?? "unknown member"),
  },
  {
    // A group mention (EXTENSIONS.md 3), as the context shows it (ui/mentions).
    name: "group",
    pattern: /<!(here|everyone)>/,
    render: (m, ctx) => ctx.groupMention?.(m[1] as "here" | "everyone") ?? "@" + m[1],
    plain: (m) => "@" + m[1],
  },
  {
    // A custom emoji as its picture; else a standard one (:tada:) as the emoji; else the text.
    name: "emoji",
    pattern: /:([a-z0-9_+-]{1,62}):/,
    render: (m, ctx) => emoji(m[1], m[0], ctx),
    plain: (m) => m[0],
  },
];

const rulesByName = new Map(INLINE_RULES.map((r) => [r.name, r]));

const md = new MarkdownIt("default", { html: false, linkify: true, typographer: false, maxNesting: 20 });
md.disable(["table", "code", "lheading", "image", "entity"]);
// Links are made of addresses with a scheme (https://...), not of words that look like domains.
md.linkify.set({ fuzzyLink: false });
md.validateLink = (url) => /^(https?:\/\/|mailto:)/i.test(url.trim());
for (const rule of INLINE_RULES) {
  const re = new RegExp(rule.pattern.source, "y");
  md.inline.ruler.before("linkify", rule.name, (state: StateInline, silent: boolean) => {
    re.lastIndex = state.pos;
    const m = re.exec(state.src);
    if (!m || state.pos + m[0].length > state.posMax) return false;
    if (!silent) {
      const t = state.push(rule.name, "", 0);
      t.content = m[0];
      t.meta = { match: [...m] };
    }
    state.pos += m[0].length;
    return true;
  });
}
addSpoilers(md);

const PIPE = 0x7c;

/**
 * ||spoiler||, tokenized as markdown-it's own ~~strikethrough~~ is (a pair of delimiters matched
 * by its balance_pairs rule, so that it nests with bold and the rest), but as Discord reads it:
 * spaces inside are allowed (|| a ||). markdown-it's text rule runs over "|": it is stopped
 * before each "||" so that this rule sees it.
 */
function addSpoilers(md: Parser) {
  const text = md.inline.ruler.__rules__.find((r) => r.name === "text")!.fn as (state: StateInline, silent: boolean) => boolean;
  md.inline.ruler.at("text", (state: StateInline, silent: boolean) => {
    const pipes = state.src.indexOf("||", state.pos);
    if (pipes === state.pos) return false;
    const max = state.posMax;
    if (pipes !== -1 && pipes < max) state.posMax = pipes;
    const ok = text(state, silent);
    state.posMax = max;
    return ok;
  });
  md.inline.ruler.after("strikethrough", "spoiler", (state: StateInline, silent: boolean) => {
    if (silent || state.src.charCodeAt(state.pos) !== PIPE || state.src.charCodeAt(state.pos + 1) !== PIPE) return false;
    let end = state.pos;
    while (end < state.posMax && state.src.charCodeAt(end) === PIPE) end++;
    let len = end - state.pos;
    if (len % 2) {
      state.push("text", "", 0).content = "|";
      len--;
    }
    for (let i = 0; i < len; i += 2) {
      state.push("text", "", 0).content = "||";
      state.delimiters.push({ marker: PIPE, length: 0, token: state.tokens.length - 1, end: -1, open: true, close: true });
    }
    state.pos = end;
    return true;
  });
  const pair = (state: StateInline, delimiters: StateInline["delimiters"]) => {
    for (const d of delimiters) {
      if (d.marker !== PIPE || d.end === -1) continue;
      const open = state.tokens[d.token];
      const close = state.tokens[delimiters[d.end].token];
      Object.assign(open, { type: "spoiler_open", nesting: 1, markup: "||", content: "" });
      Object.assign(close, { type: "spoiler_close", nesting: -1, markup: "||", content: "" });
    }
  };
  md.inline.ruler2.after("strikethrough", "spoiler", (state: StateInline) => {
    pair(state, state.delimiters);
    for (const meta of state.tokens_meta) if (meta?.delimiters) pair(state, meta.delimiters);
    return true;
  });
}

// A message is parsed once (the list renders it again for every change around it).
const parsed = new Map<string, Token[]>();
const PARSED_MAX = 500;

function parse(text: string): Token[] {
  let tokens = parsed.get(text);
  if (tokens) {
    parsed.delete(text);
  } else {
    tokens = md.parse(text, {});
    if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!);
  }
  parsed.set(text, tokens);
  return tokens;
}

/** Renders message text as elements. */
export function renderMarkdown(text: string, ctx: RenderContext): ComponentChildren[] {
  const tokens = parse(text);
  // One paragraph (most messages) is its text alone, so that "(edited)" follows on its line.
  if (tokens.length === 3 && tokens[0].type === "paragraph_open") return build(tokens[1].children ?? [], ctx, false);
  return build(tokens, ctx, false);
}

type Frame = { open: Token | null; children: ComponentChildren[]; inLink: boolean; flat?: boolean };

/**
 * How deep elements nest, at most. markdown-it holds its blocks and a line's parsing to 20
 * levels, but pairs up emphasis markers after, without a limit (a run of 4,000 asterisks each
 * side is 2,000 nested <strong>): past this depth, what is inside shows without more elements.
 */
const MAX_DEPTH = 24;

/** The tokens (markdown-it's flat stream, opening and closing tokens around their content) as elements. */
function build(tokens: Token[], ctx: RenderContext, inLink: boolean, depth = 0): ComponentChildren[] {
  const stack: Frame[] = [{ open: null, children: [], inLink }];
  const close = () => {
    const f = stack.pop()!;
    if (!f.flat) stack[stack.length - 1].children.push(element(f.open!, f.children));
  };
  for (const t of tokens) {
    const top = stack[stack.length - 1];
    if (t.nesting === 1) {
      const flat = depth + stack.length > MAX_DEPTH;
      stack.push({ open: t, children: flat ? top.children : [], inLink: top.inLink || t.type === "link_open", flat });
    } else if (t.nesting === -1) {
      if (stack.length > 1) close();
    } else top.children.push(leaf(t, ctx, top.inLink, depth + stack.length));
  }
  while (stack.length > 1) close();
  return stack[0].children;
}

function element(open: Token, children: ComponentChildren[]): ComponentChildren {
  switch (open.type) {
    case "paragraph_open":
      // In a tight list a paragraph is only its text.
      return open.hidden ? children : <p class="md-p">{children}</p>;
    case "heading_open":
      return <p class={"md-heading md-" + open.tag}>{children}</p>;
    case "blockquote_open":
      return <blockquote class="md-quote">{children}</blockquote>;
    case "bullet_list_open":
      return <ul class="md-list">{children}</ul>;
    case "ordered_list_open": {
      const start = Number(open.attrGet("start") ?? 1);
      return (
        <ol class="md-list" start={start === 1 ? undefined : start}>
          {children}
        </ol>
      );
    }
    case "list_item_open":
      return <li>{children}</li>;
    case "strong_open":
      return <strong>{children}</strong>;
    case "em_open":
      return <em>{children}</em>;
    case "s_open":
      return <s>{children}</s>;
    case "link_open":
      return link(String(open.attrGet("href") ?? ""), children);
    case "spoiler_open":
      return <Spoiler>{children}</Spoiler>;
    default:
      return children;
  }
}

function leaf(t: Token, ctx: RenderContext, inLink: boolean, depth: number): ComponentChildren {
  switch (t.type) {
    case "inline":
      return build(t.children ?? [], ctx, inLink, depth);
    case "softbreak":
    case "hardbreak":
      return <br />;
    case "code_inline":
      return <code class="code">{t.content}</code>;
    case "fence":
      return <CodeBlock code={t.content.replace(/\n$/, "")} lang={fenceLanguage(t.info)} />;
    case "hr":
      return <hr class="md-hr" />;
  }
  const rule = rulesByName.get(t.type);
  if (rule) return rule.render(t.meta!.match as string[], ctx, inLink);
  return lines(t.content);
}

/** The language word of a fence's info (```js title="x"): lower case, or "" for none. */
function fenceLanguage(info: string): string {
  return (/^[\w#+.-]{1,32}/.exec(info.trim())?.[0] ?? "").toLowerCase();
}

/** Text with its line breaks as <br>. */
function lines(text: string): ComponentChildren {
  if (!text.includes("\n")) return text;
  const out: ComponentChildren[] = [];
  text.split("\n").forEach((line, i) => {
    if (i > 0) out.push(<br />);
    if (line) out.push(line);
  });
  return out;
}

/** Whether href may be a link: http, https or mailto (markdown-it's validateLink said so already). */
function linkable(href: string): boolean {
  try {
    return ["http:", "https:", "mailto:"].includes(new URL(href).protocol);
  } catch {
    return false;
  }
}

function link(href: string, children: ComponentChildren[]): ComponentChildren {
  if (!linkable(href)) return children;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow ugc">
      {children}
    </a>
  );
}

function mention(id: string, ctx: RenderContext, inLink: boolean): VNode {
  const name = "@" + (ctx.memberName(id) ?? "unknown member");
  const cls = id === ctx.meId ? "mention mention-me" : "mention";
  // A link's text is the link's: a button in it would be a control inside a control.
  if (inLink) return <span class={cls}>{name}</span>;
  return (
    <button type="button" class={cls} onClick={(e) => ctx.onMention?.(id, e.currentTarget as HTMLElement)}>
      {name}
    </button>
  );
}

function emoji(name: string, raw: string, ctx: RenderContext): ComponentChildren {
  const url = ctx.emoji.get(name);
  if (!url) return <StandardEmoji name={name} raw={raw} />;
  return <img class="custom-emoji" src={url} alt={raw} title={raw} width={22} height={22} />;
}

/**
 * The text as one plain line, as the rendering reads: the markdown's markers gone (bold, italic,
 * code and its fences, a link's brackets and address), mentions by name, emoji as their :name:,
 * a spoiler as "(spoiler)" (what it hides is not told). For what is read out or quoted rather
 * than shown: announcements of new messages, notifications, search results, a reported message.
 * It is the same parse as renderMarkdown's, so an unmatched marker (a lone `*`) stays, as it shows.
 */
export function plainText(text: string, memberName: MemberName): string {
  const out: string[] = [];
  let hidden = 0;
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === "spoiler_open") {
        if (hidden++ === 0) out.push(" (spoiler) ");
        continue;
      }
      if (t.type === "spoiler_close") {
        hidden = Math.max(0, hidden - 1);
        continue;
      }
      if (hidden > 0) continue;
      const rule = rulesByName.get(t.type);
      if (rule) out.push(rule.plain(t.meta!.match as string[], memberName));
      else if (t.type === "inline") walk(t.children ?? []);
      else if (t.type === "text" || t.type === "text_special" || t.type === "code_inline") out.push(t.content);
      else if (t.type === "fence" || t.type === "code_block") out.push(" " + t.content + " ");
      else if (t.block || t.type === "softbreak" || t.type === "hardbreak") out.push(" ");
    }
  };
  walk(parse(text));
  return out.join("").replace(/\s+/g, " ").trim();
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
