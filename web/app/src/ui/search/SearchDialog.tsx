// Searching the messages of the channels the person is in (ChatService.Search): every word
// must match, the last one as a prefix, so results come as the person types (a quarter of a
// second after the last key). A channel filter narrows it to one channel or conversation; the
// query's filters (from:, in:, has:...) show as chips in the box (chips.tsx).
// Results are the newest first; choosing one opens it in context (see open.ts). The words found
// are marked in each result's text.

import { useEffect, useRef, useState } from "preact/hooks";
import { ChannelKind, type Message } from "../../gen/svc/v1/types_pb";
import { errorText, type Api } from "../../lib/api";
import { LIMITS, limitError } from "../../lib/chars";
import { plainText } from "../../lib/markdown";
import { allClaimed } from "../../state/claims";
import type { State } from "../../state/store";
import { ErrorRow, formatFull } from "../common";
import "./search.css";
import { queryOf, SearchBox, typedText, type Filter } from "./chips";
import { channelTitle, memberName, nameOf, sortedChannels, sortedDMs } from "../../state/selectors";

const LIMIT = 50;
const DEBOUNCE_MS = 250;

/** The channels to search in and the names to show, as of the render. */
type SearchState = Pick<State, "channels" | "members" | "me" | "claims">;

export function SearchDialogBody(props: { state: SearchState; api: Api; initialChannel?: string; onOpen: (m: Message) => void }) {
  const { state, api } = props;
  const [query, setQuery] = useState("");
  const [filters, setFilters] = useState<Filter[]>([]);
  const [channelId, setChannelId] = useState(props.initialChannel ?? "");
  const [results, setResults] = useState<Message[] | null>(null);
  const [searched, setSearched] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const generation = useRef(0);
  const list = useRef<HTMLUListElement>(null);

  const run = async (text: string, fs: Filter[], ch: string) => {
    const gen = ++generation.current;
    const q = queryOf(fs, typedText(text));
    if (!q) {
      setResults(null);
      setError("");
      setBusy(false);
      return;
    }
    // Too long for the server: said here, not sent.
    const tooLong = limitError(q, LIMITS.searchQuery);
    if (tooLong) {
      setResults(null);
      setError(tooLong);
      setBusy(false);
      return;
    }
    setBusy(true);
    try {
      const res = await api.chat.search({ query: q, channelId: ch, limit: LIMIT });
      if (gen !== generation.current) return;
      setResults(res.messages);
      setSearched(typedText(text));
      setError("");
    } catch (e) {
      if (gen !== generation.current) return;
      setResults(null);
      setError(errorText(e));
    } finally {
      if (gen === generation.current) setBusy(false);
    }
  };

  // As the person types, a moment after the last key; at once for a change of channel.
  const typed = useRef(0);
  useEffect(() => {
    typed.current = window.setTimeout(() => void run(query, filters, channelId), DEBOUNCE_MS);
    return () => clearTimeout(typed.current);
  }, [query]);
  const filterKey = queryOf(filters, "");
  useEffect(() => {
    // A search still waiting for the typing to stop was made for the channel before: it would
    // run after this one and show that channel's results under this one's name.
    clearTimeout(typed.current);
    void run(query, filters, channelId);
  }, [channelId, filterKey]);

  const latest = useRef({ query, filters });
  latest.current = { query, filters };
  const channels = [...sortedChannels(state), ...sortedDMs(state)];
  const focusResult = (delta: number) => {
    const items = [...(list.current?.querySelectorAll<HTMLButtonElement>("button.search-result") ?? [])];
    const i = items.indexOf(document.activeElement as HTMLButtonElement);
    const next = items[i < 0 ? 0 : i + delta];
    if (next) next.focus();
    else if (i + delta < 0) (document.querySelector(".search-input") as HTMLInputElement | null)?.focus();
  };
  const words = highlightWords(searched);
  // An imported member claimed while the results show, or while the claim moves their messages
  // (the server answers some with the placeholder until it is done): the member in its place.
  const shown = results && allClaimed(results, state.claims);
  return (
    <div class="search">
      <form
        class="search-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void run(query, filters, channelId);
        }}
      >
        <SearchBox
          state={state}
          text={query}
          filters={filters}
          invalid={limitError(queryOf(filters, query), LIMITS.searchQuery) !== ""}
          onChange={(fs, t) => {
            setFilters(fs);
            setQuery(t);
          }}
          onSubmit={() => {
            clearTimeout(typed.current);
            // The box may have just made chips of what was typed: the search runs with them.
            setTimeout(() => void run(latest.current.query, latest.current.filters, channelId));
          }}
          onDown={() => focusResult(0)}
        />
        <label class="search-filter">
          <span class="visually-hidden">In</span>
          <select class="input" aria-label="Search in" value={channelId} onChange={(e) => setChannelId((e.target as HTMLSelectElement).value)}>
            <option value="">All channels</option>
            {channels.map((c) => (
              <option key={c.id} value={c.id}>
                {c.kind === ChannelKind.DM ? channelTitle(state, c) : "#" + c.name}
              </option>
            ))}
          </select>
        </label>
      </form>
      <p class="muted small search-status" role="status" aria-live="polite">
        {busy
          ? "Searching…"
          : error
            ? ""
            : results === null
              ? "Every word must match; the last one may be the start of a word. \"Quotes\" find a phrase. Filters: from: in: has: is:pinned mentions:me before: after:"
              : results.length === 0
                ? "No messages found."
                : results.length >= LIMIT
                  ? `The newest ${LIMIT} messages found.`
                  : `${results.length} ${results.length === 1 ? "message" : "messages"} found.`}
      </p>
      <ErrorRow error={error} />
      {shown && shown.length > 0 && (
        <ul
          class="search-results"
          ref={list}
          aria-label="Search results"
          onKeyDown={(e) => {
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault();
              focusResult(e.key === "ArrowDown" ? 1 : -1);
            }
          }}
        >
          {shown.map((m) => (
            <li key={m.id}>
              <Result state={state} message={m} words={words} onOpen={props.onOpen} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Result(props: { state: SearchState; message: Message; words: string[]; onOpen: (m: Message) => void }) {
  const { state, message: m } = props;
  const ch = state.channels.get(m.channelId);
  const where = !ch ? "a conversation" : ch.kind === ChannelKind.DM ? channelTitle(state, ch) : "#" + ch.name;
  const author = nameOf(state, m.authorId);
  let text = plainText(m.text, (id) => memberName(state, id));
  const files = m.attachments.map((a) => a.name).join(", ");
  if (!text && files) text = files;
  return (
    <button
      type="button"
      class="search-result"
      aria-label={`${author} in ${where}, ${formatFull(m.createdAtMs)}: ${text.slice(0, 120)}`}
      onClick={() => props.onOpen(m)}
    >
      <span class="search-result-head">
        <span class="search-where">{where}</span>
        <span class="search-author">{author}</span>
        {m.threadRootId && <span class="tag">in a thread</span>}
        <time class="muted small">{formatFull(m.createdAtMs)}</time>
      </span>
      <span class="search-text">{highlight(snippet(text, props.words), props.words)}</span>
      {files && text !== files && <span class="muted small search-files">📄 {files}</span>}
    </button>
  );
}

/** The words of a query to mark in the results (quotes dropped, lowercased). */
export function highlightWords(query: string): string[] {
  return query
    .toLowerCase()
    .replace(/["“”]/g, " ")
    .split(/[^\p{L}\p{N}\p{M}\p{Extended_Pictographic}_:-]+/u)
    .filter((w) => w.length > 0)
    .sort((a, b) => b.length - a.length);
}

/** At most 280 characters of the text, around the first word found. */
export function snippet(text: string, words: string[], max = 280): string {
  if (text.length <= max) return text;
  const lower = text.toLowerCase();
  let at = -1;
  for (const w of words) {
    const i = lower.indexOf(w);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const start = Math.max(0, Math.min(at < 0 ? 0 : at - 60, text.length - max));
  return (start > 0 ? "…" : "") + text.slice(start, start + max) + (start + max < text.length ? "…" : "");
}

/** The text with every word that starts with one of words marked (as the search matches). */
export function highlight(text: string, words: string[]): preact.ComponentChildren[] {
  if (words.length === 0) return [text];
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const re = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}])(?:${escaped.join("|")})`, "giu");
  const out: preact.ComponentChildren[] = [];
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(<mark>{m[0]}</mark>);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
