// The search box's filters (EXTENSIONS.md 5) as chips: from:USERNAME, in:CHANNEL, has:file,
// has:image, has:link, is:pinned, mentions:me, before:DAY and after:DAY. A filter typed whole and
// followed by a space (or Enter) becomes a chip; one begun is completed from suggestions (the
// filters' names, then the members' usernames, the channels' names, the values a filter takes,
// recent days), picked with the arrows and Enter or Tab, or the mouse. A chip goes with its ✕, or
// with Backspace at the start of the box, which gives its words back to be changed. The query
// sent is the chips' words and the text; the server's refusal of one names it.

import { useState } from "preact/hooks";
import { ChannelKind } from "../../gen/svc/v1/types_pb";
import type { State } from "../../state/store";

export type FilterKey = "from" | "in" | "has" | "is" | "mentions" | "before" | "after";
export type Filter = { key: FilterKey; value: string };

const KEYS: { key: FilterKey; hint: string }[] = [
  { key: "from", hint: "messages by someone" },
  { key: "in", hint: "messages in a channel" },
  { key: "has", hint: "with a file, an image or a link" },
  { key: "is", hint: "pinned messages" },
  { key: "mentions", hint: "messages that mention you" },
  { key: "before", hint: "before a day (UTC)" },
  { key: "after", hint: "after a day (UTC)" },
];

const VALUES: Partial<Record<FilterKey, string[]>> = { has: ["file", "image", "link"], is: ["pinned"], mentions: ["me"] };

const FILTER = /^(from|in|has|is|mentions|before|after):(\S+)$/;

/** A word that is a whole filter. */
export function parseFilter(word: string): Filter | undefined {
  const m = FILTER.exec(word);
  return m ? { key: m[1] as FilterKey, value: m[2] } : undefined;
}

export function filterWord(f: Filter): string {
  return `${f.key}:${f.value}`;
}

/** The query as the server takes it: the filters' words, then the text. */
export function queryOf(filters: Filter[], text: string): string {
  return [...filters.map(filterWord), text.trim()].filter((w) => w !== "").join(" ");
}

/**
 * The text to search while it is typed: a filter being written at its end (from:ma) is left
 * out until it is whole and becomes a chip, so that it is not searched as a word or refused.
 */
export function typedText(text: string): string {
  return text.replace(/(^|\s)(from|in|has|is|mentions|before|after):\S*$/, "$1");
}

/** A filter added: it replaces one of the same kind (each is allowed once). */
export function withFilter(filters: Filter[], f: Filter): Filter[] {
  return [...filters.filter((x) => x.key !== f.key), f];
}

/**
 * Takes the whole filters out of the text into chips: those followed by a space, and with all,
 * the last word too (the one being typed stays otherwise).
 */
export function takeFilters(filters: Filter[], text: string, all: boolean): { filters: Filter[]; text: string } {
  const words = text.split(/(\s+)/);
  // The last element is the word being typed ("" after a space).
  const last = words.length - 1;
  let out = filters;
  const kept: string[] = [];
  words.forEach((w, i) => {
    const f = i % 2 === 0 && (all || i < last) ? parseFilter(w) : undefined;
    if (f) out = withFilter(out, f);
    else kept.push(w);
  });
  if (out === filters) return { filters, text };
  return { filters: out, text: kept.join("").replace(/^\s+/, "").replace(/\s{2,}/g, " ") };
}

/** A suggestion: what it puts in the box (a filter's name and colon, or a whole filter). */
export type Suggestion = { word: string; label: string; detail: string; whole: boolean };

/** The day n days before now, as a filter writes it (UTC). */
function day(now: number, n: number): string {
  return new Date(now - n * 86_400_000).toISOString().slice(0, 10);
}

/** The suggestions for the word being typed. */
export function suggest(state: Pick<State, "members" | "channels">, word: string, now: number): Suggestion[] {
  if (!word) return [];
  const colon = word.indexOf(":");
  if (colon < 0) {
    const w = word.toLowerCase();
    return KEYS.filter((k) => k.key.startsWith(w)).map((k) => ({ word: k.key + ":", label: k.key + ":", detail: k.hint, whole: false }));
  }
  const key = word.slice(0, colon) as FilterKey;
  if (!KEYS.some((k) => k.key === key)) return [];
  const v = word.slice(colon + 1).toLowerCase();
  const whole = (value: string, label: string, detail: string): Suggestion => ({ word: `${key}:${value}`, label, detail, whole: true });
  switch (key) {
    case "from":
      return [...state.members.values()]
        .filter((m) => m.username.startsWith(v) || m.displayName.toLowerCase().split(/\s+/).some((x) => x.startsWith(v)))
        .sort((a, b) => a.username.localeCompare(b.username))
        .slice(0, 8)
        .map((m) => whole(m.username, `from:${m.username}`, m.displayName || m.username));
    case "in":
      return [...state.channels.values()]
        .filter((c) => c.kind !== ChannelKind.DM && c.name.startsWith(v))
        .sort((a, b) => a.name.localeCompare(b.name))
        .slice(0, 8)
        .map((c) => whole(c.name, `in:${c.name}`, "#" + c.name));
    case "before":
    case "after": {
      // Each excludes its own day (UTC).
      const days: [number, string][] =
        key === "before"
          ? [
              [0, "before today"],
              [1, "before yesterday"],
              [7, "more than a week ago"],
              [30, "more than 30 days ago"],
            ]
          : [
              [1, "today"],
              [7, "in the last week"],
              [30, "in the last 30 days"],
            ];
      const list = days.map(([n, when]): [string, string] => [day(now, n), when]).filter(([d]) => d.startsWith(v)).map(([d, when]) => whole(d, `${key}:${d}`, `${when} (UTC)`));
      // A whole day typed that is none of them.
      if (/^\d{4}-\d{2}-\d{2}$/.test(v) && !list.some((s) => s.word === `${key}:${v}`)) list.unshift(whole(v, `${key}:${v}`, `${key} that day, UTC`));
      return list;
    }
    default:
      return (VALUES[key] ?? []).filter((x) => x.startsWith(v)).map((x) => whole(x, `${key}:${x}`, KEYS.find((k) => k.key === key)!.hint));
  }
}

/**
 * The search box: the chips, the text, and the suggestions under it. The input keeps its
 * label (Search messages); ArrowDown with no suggestion open goes to the results (onDown).
 */
export function SearchBox(props: {
  state: Pick<State, "members" | "channels">;
  text: string;
  filters: Filter[];
  onChange: (filters: Filter[], text: string) => void;
  onSubmit: () => void;
  onDown: () => void;
  invalid: boolean;
}) {
  const { text, filters, onChange } = props;
  // Which suggestion is chosen: -1 for none (Enter searches; a filter's value once typed after
  // its name is chosen at once).
  const [active, setActive] = useState(-1);
  const [closed, setClosed] = useState(false);
  const word = /(\S*)$/.exec(text)![1];
  const list = closed ? [] : suggest(props.state, word, Date.now());
  const chosen = active >= 0 ? active : word.includes(":") && list.length > 0 ? 0 : -1;

  const change = (fs: Filter[], t: string) => {
    setActive(-1);
    setClosed(false);
    onChange(fs, t);
  };
  const pick = (s: Suggestion) => {
    const before = text.slice(0, text.length - word.length);
    if (s.whole) {
      const f = parseFilter(s.word)!;
      change(withFilter(filters, f), before.replace(/\s+$/, before.trim() ? " " : ""));
    } else change(filters, before + s.word);
  };
  const remove = (f: Filter) => change(filters.filter((x) => x !== f), text);

  const onKeyDown = (e: KeyboardEvent) => {
    const input = e.currentTarget as HTMLInputElement;
    if (list.length > 0 && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
      e.preventDefault();
      const d = e.key === "ArrowDown" ? 1 : -1;
      setActive((chosen + d + list.length + (chosen < 0 && d < 0 ? 1 : 0)) % list.length);
    } else if (e.key === "ArrowDown") {
      e.preventDefault();
      props.onDown();
    } else if (list.length > 0 && ((e.key === "Enter" && chosen >= 0) || e.key === "Tab") && !e.isComposing) {
      e.preventDefault();
      pick(list[Math.max(0, chosen)]);
    } else if (e.key === "Escape" && list.length > 0) {
      // The suggestions close; the dialog stays.
      e.preventDefault();
      setClosed(true);
    } else if (e.key === "Enter" && !e.isComposing) {
      e.preventDefault();
      const t = takeFilters(filters, text, true);
      if (t.filters !== filters) change(t.filters, t.text);
      props.onSubmit();
    } else if (e.key === "Backspace" && input.selectionStart === 0 && input.selectionEnd === 0 && filters.length > 0) {
      // The last chip back into the box, to be changed.
      e.preventDefault();
      const last = filters[filters.length - 1];
      change(filters.slice(0, -1), filterWord(last) + (text ? " " + text : ""));
    }
  };

  const listId = "search-suggestions";
  return (
    <>
    <div class="search-box">
      {filters.map((f) => (
        <span class="search-chip" key={f.key}>
          <span class="search-chip-key">{f.key}:</span>
          <span class="search-chip-value">{f.value}</span>
          <button type="button" class="search-chip-remove" aria-label={`Remove the filter ${filterWord(f)}`} onClick={() => remove(f)}>
            ✕
          </button>
        </span>
      ))}
      <input
        type="search"
        class="search-input"
        placeholder={filters.length > 0 ? "Add words or filters" : "Search messages, or from: in: has: before:"}
        aria-label="Search messages"
        role="combobox"
        list={undefined}
        aria-autocomplete="list"
        aria-expanded={list.length > 0}
        aria-controls={list.length > 0 ? listId : undefined}
        aria-activedescendant={chosen >= 0 && list.length > 0 ? `${listId}-${chosen}` : undefined}
        aria-invalid={props.invalid || undefined}
        value={text}
        autoFocus
        onInput={(e) => {
          const t = takeFilters(filters, (e.target as HTMLInputElement).value, false);
          change(t.filters, t.text);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setClosed(true)}
        onFocus={() => setClosed(false)}
      />
    </div>
      {list.length > 0 && (
        <ul class="search-suggestions" id={listId} role="listbox" aria-label="Filters">
          {list.map((s, i) => (
            <li
              key={s.word}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === chosen}
              class={i === chosen ? "search-suggestion selected" : "search-suggestion"}
              // The box keeps the focus.
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => pick(s)}
            >
              <span class="search-suggestion-word">{s.label}</span>
              <span class="muted small">{s.detail}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
