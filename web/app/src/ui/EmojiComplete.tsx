// The composer's `:` completion: typing a colon and two letters of a name (:ta) offers the
// standard emoji and the community's whose names have them in (lib/shortcodes), each shown
// with its name; Up and Down move, Tab or Enter puts the one chosen in place of what was
// typed (the emoji itself; a custom one as its :name:), Escape closes, and so does a click
// elsewhere. The table of standard names loads with the first colon typed.

import type { VNode } from "preact";
import { useState } from "preact/hooks";
import { searchShortcodes, shortcodes, type EmojiMatch } from "../lib/shortcodes";
import "./rich.css";

/** The most names offered at once. */
const OFFERED = 8;

export type EmojiComplete = {
  /** Looks at what is before the caret, after a change or a move of it. */
  find: (value: string, caret: number) => void;
  /** A key pressed in the box: true when the completion took it. */
  onKeyDown: (e: KeyboardEvent) => boolean;
  close: () => void;
  /** The list, when open. */
  list: VNode | null;
  /** For the box's aria-controls and aria-activedescendant, when open. */
  listId?: string;
  activeId?: string;
};

/**
 * custom is the community's emoji (name to picture); place puts text in the box in place of
 * the characters from start to the caret and leaves the caret after it.
 */
export function useEmojiComplete(props: {
  id: string;
  custom: ReadonlyMap<string, string>;
  place: (start: number, text: string) => void;
}): EmojiComplete {
  const [query, setQuery] = useState<{ start: number; text: string; index: number } | null>(null);
  const table = shortcodes.use(query !== null);
  const offered: EmojiMatch[] = query ? searchShortcodes(query.text, table, props.custom, OFFERED) : [];
  const open = query !== null && offered.length > 0;
  const listId = `emoji-${props.id}`;

  const pick = (e: EmojiMatch) => {
    if (!query) return;
    props.place(query.start, (e.char ?? `:${e.name}:`) + " ");
    setQuery(null);
  };

  return {
    find: (value, caret) => {
      // A colon at the start or after a space or bracket, then two or more letters of a name.
      const m = /(^|[\s([{])(:[a-z0-9_+-]{2,32})$/i.exec(value.slice(0, caret));
      if (!m) return setQuery(null);
      const text = m[2].slice(1).toLowerCase();
      setQuery((q) => ({ start: caret - m[2].length, text, index: q && q.text === text ? q.index : 0 }));
    },
    onKeyDown: (e) => {
      if (!open || !query) return false;
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        const d = e.key === "ArrowDown" ? 1 : -1;
        setQuery({ ...query, index: (query.index + d + offered.length) % offered.length });
      } else if ((e.key === "Enter" && !e.isComposing) || e.key === "Tab") {
        pick(offered[query.index] ?? offered[0]);
      } else if (e.key === "Escape") {
        setQuery(null);
      } else return false;
      e.preventDefault();
      return true;
    },
    close: () => setQuery(null),
    listId: open ? listId : undefined,
    activeId: open ? `${listId}-${query.index}` : undefined,
    list: open ? (
      <ul class="mention-list emoji-complete" id={listId} role="listbox" aria-label="Emoji">
        {offered.map((e, i) => (
          <li
            key={e.name}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === query.index}
            class={i === query.index ? "mention-option emoji-complete-option selected" : "mention-option emoji-complete-option"}
            onMouseDown={(ev) => {
              // Before the box loses the focus (which closes the list).
              ev.preventDefault();
              pick(e);
            }}
          >
            {e.url ? <img class="emoji-complete-char" src={e.url} alt="" width={22} height={22} /> : <span class="emoji-complete-char">{e.char}</span>}
            <span class="emoji-complete-name">:{e.name}:</span>
          </li>
        ))}
      </ul>
    ) : null,
  };
}
