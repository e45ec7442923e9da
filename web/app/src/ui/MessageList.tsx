// The windowed message list. It renders only the view's window (at most a few hundred
// messages, however long the channel), loads older and newer pages as the person scrolls near
// either end, and keeps the message under the eye in place while pages come and go: the first
// visible message and its offset are remembered on every scroll and restored after every
// render. At the live end it sticks to the bottom as messages arrive.
//
// A channel opens at its end, or, when more is new than a screen holds, on the "New messages"
// divider (state/view.ts, readMark). Away from the end, "Jump to latest" says how many are new
// below (came meanwhile, or are unread); with the divider above (or the new part before the window), "Jump to first
// unread" leads to it. Shift+PageDown and Shift+PageUp do the same from the keyboard.

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../gen/svc/v1/types_pb";
import type { Api } from "../lib/api";
import { useStore, type Store } from "../state/store";
import type { MessageView } from "../state/view";
import { ownPending } from "../state/outbox";
import { dayKey, formatDay } from "./common";
import { MessageItem, PendingItem, type MessageActions, type MessageCommands, type MessageShared } from "./MessageItem";
import { useArrivals } from "./arrivals";
import "./flow.css";

const EDGE = 600; // px from an end at which the next page loads
const GROUP_MS = 5 * 60 * 1000;

export function MessageList(props: {
  store: Store;
  act: MessageCommands;
  api: Api;
  view: MessageView;
  label: string;
  actions: MessageActions;
  inThread: boolean;
  intro?: preact.ComponentChildren;
  /** Called when the newest message is in sight (to mark the channel read). */
  onAtBottom?: () => void;
  /** Escape in the list: back to the composer. */
  onEscape?: () => void;
  /** How many messages of the channel are unread (the "Jump to first unread" bar's count). */
  unread?: number;
}) {
  const { store, view } = props;
  const state = useStore(store, view.topic, "members", "emoji", "pending", "me", "previews");
  const shared: MessageShared = { state, act: props.act, base: store.base, api: props.api, store };
  const scroller = useRef<HTMLDivElement>(null);
  const anchor = useRef<{ id: string; top: number } | null>(null);
  const stick = useRef(true);
  const epoch = useRef(-1);

  const items = () => scroller.current?.querySelectorAll<HTMLElement>("[data-id]") ?? ([] as unknown as NodeListOf<HTMLElement>);

  /** Remembers the first message in sight and where it is. */
  const remember = () => {
    const el = scroller.current;
    if (!el) return;
    for (const item of items()) {
      if (item.offsetTop + item.offsetHeight > el.scrollTop) {
        anchor.current = { id: item.dataset.id!, top: item.offsetTop - el.scrollTop };
        return;
      }
    }
    anchor.current = null;
  };

  const nearBottom = () => {
    const el = scroller.current!;
    return el.scrollHeight - el.scrollTop - el.clientHeight < 48;
  };

  // Away from the end (the jump button), and the divider above what is in sight (the bar).
  const [away, setAway] = useState(false);
  const [newAbove, setNewAbove] = useState(false);
  /** The person sees the end of the window, the page being in sight. */
  const watching = () => !!scroller.current && !view.hasAfter && nearBottom() && document.visibilityState === "visible";
  /** What the person sees now: the two buttons, and nothing unseen once the end is in sight. */
  const looked = () => {
    const el = scroller.current;
    if (!el) return;
    const end = !view.hasAfter && nearBottom();
    if (watching() && view.unseen > 0) view.unseen = 0;
    setAway(!end && (view.hasAfter || view.unseen > 0 || el.scrollHeight - el.scrollTop - el.clientHeight > el.clientHeight / 3));
    const divider = el.querySelector<HTMLElement>(".new-divider");
    setNewAbove(view.newBefore() || (!!divider && divider.offsetTop + divider.offsetHeight < el.scrollTop));
  };
  useEffect(() => {
    const on = () => looked();
    document.addEventListener("visibilitychange", on);
    view.watching = watching;
    return () => {
      document.removeEventListener("visibilitychange", on);
      if (view.watching === watching) view.watching = () => false;
    };
  }, [view]);

  /** Loads the next page when an end is near, and reports the bottom. */
  const check = () => {
    const el = scroller.current;
    if (!el || !view.loaded || view.loading) return;
    if (el.scrollTop < EDGE && view.hasBefore) void view.loadBefore();
    else if (el.scrollHeight - el.scrollTop - el.clientHeight < EDGE && view.hasAfter) void view.loadAfter();
    if (!view.hasAfter && nearBottom()) props.onAtBottom?.();
  };

  // The scroll position last seen by a scroll event or set here. A scroll whose event has not
  // come yet shows as a different position at the next render, which then reads the page
  // instead of keeping what the last event left (a render between a scroll and its event must
  // not undo the scroll). A change of width alone (a thread opening beside) keeps the position,
  // so the list stays at the bottom or on its anchor.
  const lastTop = useRef(-1);
  const onScroll = () => {
    // A scroll event can come after the list has gone (a thread closed as it scrolled).
    if (!scroller.current) return;
    stick.current = !view.hasAfter && nearBottom();
    remember();
    lastTop.current = scroller.current?.scrollTop ?? -1;
    looked();
    check();
  };
  if (scroller.current && view.loaded && view.epoch === epoch.current && scroller.current.scrollTop !== lastTop.current) {
    stick.current = nearBottom();
    remember();
    lastTop.current = scroller.current.scrollTop;
  }

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (view.epoch !== epoch.current && view.loaded) {
      // A new window: the newest messages, the one a jump asked for, or the new ones. The
      // list's first window shows the divider rather than the end when the new part is
      // longer than a screen.
      const first = epoch.current === -1;
      epoch.current = view.epoch;
      const target = view.target ? el.querySelector<HTMLElement>(`[data-id="${CSS.escape(view.target)}"]`) : null;
      const divider = view.place === "new" || (first && view.place === "end") ? el.querySelector<HTMLElement>(".new-divider") : null;
      if (target) {
        el.scrollTop = target.offsetTop - el.clientHeight / 2 + target.offsetHeight / 2;
        stick.current = false;
        target.focus({ preventScroll: true });
      } else if (divider && (view.place === "new" || divider.offsetTop < el.scrollHeight - el.clientHeight)) {
        el.scrollTop = divider.offsetTop - 8;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48 && !view.hasAfter;
      } else {
        el.scrollTop = el.scrollHeight;
        stick.current = !view.hasAfter;
      }
      remember();
    } else if (stick.current && !view.hasAfter) {
      el.scrollTop = el.scrollHeight;
      remember();
    } else if (anchor.current) {
      const item = el.querySelector<HTMLElement>(`[data-id="${CSS.escape(anchor.current.id)}"]`);
      if (item) el.scrollTop = item.offsetTop - anchor.current.top;
      remember();
    }
    lastTop.current = el.scrollTop;
    looked();
    // The window may not fill the screen yet, or the bottom may be in sight already.
    check();
  });

  // Images that finish loading can change nothing (their size is reserved), but a resize can.
  useEffect(() => {
    const el = scroller.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      if (stick.current && !view.hasAfter) el.scrollTop = el.scrollHeight;
      else if (anchor.current) {
        const item = el.querySelector<HTMLElement>(`[data-id="${CSS.escape(anchor.current.id)}"]`);
        if (item) el.scrollTop = item.offsetTop - anchor.current.top;
      }
      lastTop.current = el.scrollTop;
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [view]);

  const arrivals = useArrivals(state, view);

  const pending = view.hasAfter
    ? []
    : store.pending.filter((p) => p.channelId === view.channelId && p.threadRootId === view.threadRootId && ownPending(p, state.me?.id));

  // New below what is in sight: what came meanwhile, or the channel's unread messages.
  const fresh = Math.max(view.unseen, props.unread ?? 0);
  const rows: preact.ComponentChildren[] = [];
  const dividerAt = view.divider();
  let prev: Message | undefined;
  for (const m of view.messages) {
    const day = dayKey(m.createdAtMs);
    const newDay = !prev || dayKey(prev.createdAtMs) !== day;
    if (newDay) {
      rows.push(
        <div class="day-divider" role="separator" key={"day-" + day}>
          <span>{formatDay(m.createdAtMs)}</span>
        </div>,
      );
    }
    if (m.id === dividerAt) {
      rows.push(
        <div class="new-divider" role="separator" aria-label="New messages" key="new-divider">
          <span aria-hidden="true">New messages</span>
        </div>,
      );
    }
    const grouped =
      !!prev &&
      m.id !== dividerAt &&
      !newDay &&
      prev.authorId === m.authorId &&
      !prev.deleted &&
      Number(m.createdAtMs - prev.createdAtMs) < GROUP_MS &&
      (props.inThread || prev.replyCount === 0);
    rows.push(
      <MessageItem
        key={m.id}
        shared={shared}
        message={m}
        grouped={grouped}
        target={m.id === view.target}
        inThread={props.inThread}
        actions={props.actions}
      />,
    );
    prev = m;
  }

  /** To the divider in the window, else to where the new part starts (loaded around it). */
  const toNew = () => {
    const el = scroller.current;
    const divider = el?.querySelector<HTMLElement>(".new-divider");
    if (el && divider && !view.newBefore()) {
      el.scrollTop = divider.offsetTop - 8;
      divider.nextElementSibling instanceof HTMLElement && divider.nextElementSibling.focus({ preventScroll: true });
    } else void view.jumpToNew();
  };
  const toLatest = () => {
    view.toLatest();
    // The focus follows to the newest message when it was in the list.
    if (scroller.current?.contains(document.activeElement)) requestAnimationFrame(() => focusNewest(scroller.current));
  };
  // Shift+PageDown and Shift+PageUp: the channel's list, or the thread's while the focus is in it.
  const keys = useRef({ toNew, toLatest });
  keys.current = { toNew, toLatest };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.shiftKey || e.altKey || e.ctrlKey || e.metaKey || (e.key !== "PageDown" && e.key !== "PageUp")) return;
      const inThread = !!document.activeElement?.closest(".thread-panel");
      if (inThread !== props.inThread || document.querySelector("dialog[open]")) return;
      e.preventDefault();
      if (e.key === "PageDown") keys.current.toLatest();
      else keys.current.toNew();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [props.inThread]);

  // The keyboard: Up and Down move between messages (their actions show while one has the
  // focus, and Tab reaches them), Home and End go to the first and last held, Escape goes back
  // to the composer.
  const onKeyDown = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement;
    const onList = target.getAttribute("role") === "log" || target.matches("article.msg");
    if (!onList || e.altKey || e.ctrlKey || e.metaKey) return;
    const list = [...items()].filter((el) => el.matches("article.msg"));
    const i = list.indexOf(target);
    let next = -1;
    if (e.key === "ArrowUp") next = i < 0 ? list.length - 1 : i - 1;
    else if (e.key === "ArrowDown") next = i < 0 ? -1 : i + 1;
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = list.length - 1;
    else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      props.onEscape?.();
      return;
    } else return;
    e.preventDefault();
    const el = list[next];
    if (el) {
      el.focus({ preventScroll: true });
      el.scrollIntoView({ block: "nearest" });
    }
  };

  return (
    <div class="message-pane">
      <div class="message-scroller" ref={scroller} onScroll={onScroll}>
      {/* Not live itself: the arrivals are told below (ui/arrivals.ts). */}
      <div class="message-list" role="log" aria-live="off" tabIndex={0} aria-label={props.label} aria-busy={view.loading !== ""} onKeyDown={onKeyDown}>
        {view.loaded && !view.hasBefore && props.intro}
        {view.loading === "before" && <p class="loading-row">Loading older messages…</p>}
        {view.error && (
          <p class="error-row" role="alert">
            {view.error}{" "}
            <button type="button" class="button" onClick={() => (view.loaded ? view.loadBefore() : view.loadLatest())}>
              Try again
            </button>
          </p>
        )}
        {rows}
        {pending.map((p) => (
          <PendingItem key={p.clientId} shared={shared} pending={p} />
        ))}
        {view.loading === "after" && <p class="loading-row">Loading newer messages…</p>}
        {view.loading === "initial" && <p class="loading-row">Loading messages…</p>}
      </div>
      </div>
      <p class="visually-hidden arrivals" aria-live="polite" aria-atomic="true">
        {arrivals}
      </p>
      {(props.unread ?? 0) > 0 && newAbove && (
        <button type="button" class="jump-new" aria-keyshortcuts="Shift+PageUp" onClick={toNew}>
          {props.unread} new {props.unread === 1 ? "message" : "messages"} · Jump to first unread ↑
        </button>
      )}
      {(away || view.hasAfter) && (
        <button type="button" class="jump-present" aria-keyshortcuts="Shift+PageDown" onClick={toLatest}>
          {fresh > 0 ? `${fresh} new ${fresh === 1 ? "message" : "messages"} · ` : ""}Jump to latest ↓
        </button>
      )}
    </div>
  );
}

/** Focuses the last message of a list. */
function focusNewest(scroller: HTMLElement | null): void {
  const list = scroller?.querySelectorAll<HTMLElement>(".message-list > article.msg");
  list?.[list.length - 1]?.focus({ preventScroll: true });
}
