// A list whose order people change by dragging a row or from the keyboard: each row has a
// handle; with the focus on it, Up and Down move the row by one (past the first or last row of
// a group, into the group next to it), and a live region says where it went. Dropping a row on
// another puts it before or after that row (in its group); on a group's heading, first in it.

import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";

export type ReorderItem = { id: string; group: string; name: string; content: ComponentChildren };

export type Move = { id: string; group: string; index: number };

export function ReorderList(props: {
  label: string;
  items: ReorderItem[];
  /** The groups in order, with their headings (one group "" without a heading: a flat list). */
  groups: { id: string; title: string }[];
  onMove: (m: Move) => void;
  disabled?: boolean;
}) {
  const [announce, setAnnounce] = useState("");
  const [focusId, setFocusId] = useState("");
  const [dragging, setDragging] = useState("");
  const [dropAt, setDropAt] = useState<{ id: string; after: boolean } | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const helpId = useId();
  const byGroup = props.groups.map((g) => ({ ...g, items: props.items.filter((i) => i.group === g.id) }));
  const flat = props.groups.length > 1 || props.groups[0]?.title;

  // The moved row's handle keeps the focus: the row may have been moved in the page.
  useEffect(() => {
    if (!focusId) return;
    listRef.current?.querySelector<HTMLElement>(`[data-handle="${CSS.escape(focusId)}"]`)?.focus();
    setFocusId("");
  });

  const say = (m: Move) => {
    const g = byGroup.find((x) => x.id === m.group);
    const name = props.items.find((i) => i.id === m.id)?.name ?? "";
    const size = (g?.items.filter((i) => i.id !== m.id).length ?? 0) + 1;
    setAnnounce(`${name} moved to position ${m.index + 1} of ${size}${flat && g ? " in " + g.title : ""}.`);
  };

  const move = (m: Move) => {
    say(m);
    setFocusId(m.id);
    props.onMove(m);
  };

  const onKey = (e: KeyboardEvent, item: ReorderItem) => {
    if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
    e.preventDefault();
    if (props.disabled) return;
    const gi = byGroup.findIndex((g) => g.id === item.group);
    const list = byGroup[gi].items;
    const i = list.findIndex((x) => x.id === item.id);
    if (e.key === "ArrowUp") {
      if (i > 0) move({ id: item.id, group: item.group, index: i - 1 });
      else if (gi > 0) move({ id: item.id, group: byGroup[gi - 1].id, index: byGroup[gi - 1].items.length });
    } else {
      if (i < list.length - 1) move({ id: item.id, group: item.group, index: i + 1 });
      else if (gi < byGroup.length - 1) move({ id: item.id, group: byGroup[gi + 1].id, index: 0 });
    }
  };

  const drop = (target: ReorderItem | null, group: string, after: boolean) => {
    const id = dragging;
    setDragging("");
    setDropAt(null);
    if (!id || id === target?.id || props.disabled) return;
    const list = props.items.filter((i) => i.group === group && i.id !== id);
    let index = target ? list.findIndex((i) => i.id === target.id) + (after ? 1 : 0) : 0;
    if (index < 0) index = list.length;
    move({ id, group, index });
  };

  return (
    <div class={dragging ? "reorder dragging" : "reorder"} ref={listRef}>
      <p class="visually-hidden" aria-live="assertive">
        {announce}
      </p>
      {byGroup.map((g) => (
        <section key={g.id} class="reorder-group" aria-label={g.title || props.label}>
          {g.title && (
            <h3
              class={dropAt?.id === "group:" + g.id ? "reorder-title drop-before" : "reorder-title"}
              onDragOver={(e) => {
                if (!dragging) return;
                e.preventDefault();
                setDropAt({ id: "group:" + g.id, after: false });
              }}
              onDrop={(e) => {
                e.preventDefault();
                drop(null, g.id, false);
              }}
            >
              {g.title}
            </h3>
          )}
          <ul class="reorder-list">
            {g.items.map((item) => (
              <li
                key={item.id}
                class={`reorder-row${dragging === item.id ? " is-dragged" : ""}${dropAt?.id === item.id ? (dropAt.after ? " drop-after" : " drop-before") : ""}`}
                data-id={item.id}
                draggable={!props.disabled}
                onDragStart={(e) => {
                  setDragging(item.id);
                  e.dataTransfer?.setData("text/plain", item.name);
                  if (e.dataTransfer) e.dataTransfer.effectAllowed = "move";
                }}
                onDragEnd={() => {
                  setDragging("");
                  setDropAt(null);
                }}
                onDragOver={(e) => {
                  if (!dragging) return;
                  e.preventDefault();
                  const box = (e.currentTarget as HTMLElement).getBoundingClientRect();
                  setDropAt({ id: item.id, after: e.clientY > box.top + box.height / 2 });
                }}
                onDrop={(e) => {
                  e.preventDefault();
                  const box = (e.currentTarget as HTMLElement).getBoundingClientRect();
                  drop(item, item.group, e.clientY > box.top + box.height / 2);
                }}
              >
                <button
                  type="button"
                  class="reorder-handle"
                  data-handle={item.id}
                  aria-label={`Move ${item.name}`}
                  aria-describedby={helpId}
                  disabled={props.disabled}
                  onKeyDown={(e) => onKey(e, item)}
                >
                  <span aria-hidden="true">⠿</span>
                </button>
                {item.content}
              </li>
            ))}
          </ul>
        </section>
      ))}
      <p id={helpId} class="muted small reorder-help">
        Drag a row by its handle, or focus the handle and press the Up and Down arrow keys.
      </p>
    </div>
  );
}
