// The emoji picker: quick reactions, a search box, the unicode set by category and the
// community's custom emoji. Arrow keys move through the grid; Enter picks; Escape closes.

import { useMemo, useRef, useState } from "preact/hooks";
import { EMOJI, QUICK_REACTIONS, emojiName, searchEmoji, type EmojiEntry } from "../lib/emoji";
import { useStore, type Store } from "../state/store";
import { Dialog } from "./common";

const COLUMNS = 8;

export function EmojiPicker(props: { store: Store; title: string; onPick: (emoji: string) => void; onClose: () => void }) {
  const { emoji } = useStore(props.store, "emoji");
  const [query, setQuery] = useState("");
  const grid = useRef<HTMLDivElement>(null);
  const custom = useMemo(
    () => [...emoji.entries()].filter(([name]) => !query || name.includes(query.toLowerCase())),
    [emoji, query],
  );
  const found: EmojiEntry[] | null = query ? searchEmoji(query) : null;
  const pick = (e: string) => {
    props.onPick(e);
    props.onClose();
  };
  const onKey = (e: KeyboardEvent) => {
    const buttons = [...(grid.current?.querySelectorAll<HTMLButtonElement>("button.emoji-cell") ?? [])];
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    let next = -1;
    if (e.key === "ArrowRight") next = i + 1;
    else if (e.key === "ArrowLeft") next = i - 1;
    else if (e.key === "ArrowDown") next = i < 0 ? 0 : i + COLUMNS;
    else if (e.key === "ArrowUp") next = i - COLUMNS;
    else return;
    e.preventDefault();
    if (next >= 0 && next < buttons.length) buttons[next].focus();
    else if (next < 0 && e.key === "ArrowUp") (grid.current?.parentElement?.querySelector("input") as HTMLInputElement | null)?.focus();
  };
  const cell = (char: string, label: string) => (
    <button type="button" class="emoji-cell" aria-label={label} title={label} onClick={() => pick(char)}>
      {char}
    </button>
  );
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <div class="emoji-picker">
        <input
          type="search"
          class="input"
          placeholder="Search emoji"
          aria-label="Search emoji"
          value={query}
          autoFocus
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault();
              grid.current?.querySelector<HTMLButtonElement>("button.emoji-cell")?.focus();
            } else if (e.key === "Enter") {
              e.preventDefault();
              const first = found?.[0]?.char ?? (custom[0] ? `:${custom[0][0]}:` : "");
              if (first) pick(first);
            }
          }}
        />
        <div class="emoji-grid-wrap" ref={grid} onKeyDown={onKey}>
          {!query && (
            <section aria-label="Frequently used">
              <div class="emoji-grid">{QUICK_REACTIONS.map((c) => cell(c, emojiName(c)))}</div>
            </section>
          )}
          {custom.length > 0 && (
            <section aria-label="Custom emoji">
              <h3 class="emoji-cat">Custom</h3>
              <div class="emoji-grid">
                {custom.map(([name, url]) => (
                  <button type="button" class="emoji-cell" aria-label={`:${name}:`} title={`:${name}:`} onClick={() => pick(`:${name}:`)}>
                    <img src={url} alt="" width={24} height={24} />
                  </button>
                ))}
              </div>
            </section>
          )}
          {found ? (
            <section aria-label="Search results">
              <div class="emoji-grid">{found.map((e) => cell(e.char, e.name))}</div>
              {found.length === 0 && custom.length === 0 && <p class="muted">No emoji found.</p>}
            </section>
          ) : (
            EMOJI.map((cat) => (
              <section aria-label={cat.name} key={cat.name}>
                <h3 class="emoji-cat">{cat.name}</h3>
                <div class="emoji-grid">{cat.emoji.map((e) => cell(e.char, e.name))}</div>
              </section>
            ))
          )}
        </div>
      </div>
    </Dialog>
  );
}
