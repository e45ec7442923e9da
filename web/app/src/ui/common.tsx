// Small pieces every screen uses: avatars, presence dots, modal dialogs, the notices, a refusal's
// message, times.

import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { Presence, type Member } from "../gen/svc/v1/types_pb";
import { absUrl, errorText } from "../lib/api";
import type { Commands } from "../state/commands";
import type { Notice } from "../state/notices";
import { useStore, type Store } from "../state/store";

/** A refusal or failure, as an alert under what was refused; nothing when there is none. */
export function ErrorRow(props: { error?: string | null }) {
  if (!props.error) return null;
  return (
    <p class="error-row" role="alert">
      {props.error}
    </p>
  );
}

/**
 * What a screen lists from the server (bans, reports, invites, channels): loaded when the screen
 * opens and again on reload. The list is null until the first answer; error is the refusal of
 * the last load, and stays shown until a load succeeds (a reload in the background, as on a
 * join, does not blink it away).
 *
 * Only the newest load's answer is shown: two loads close together can answer in either order.
 * setList is for a change the server has made (a new invite, an unban): a load still on its way
 * may have been read before it and would undo it, so the list is then loaded again.
 */
export function useLoaded<T>(fetch: () => Promise<T[]>) {
  const [list, setShown] = useState<T[] | null>(null);
  const [error, setError] = useState("");
  const loads = useRef({ newest: 0, pending: 0 });
  const reload = () => {
    const n = ++loads.current.newest;
    loads.current.pending++;
    return fetch()
      .then((l) => {
        if (n !== loads.current.newest) return;
        setShown(l);
        setError("");
      })
      .catch((e) => {
        if (n === loads.current.newest) setError(errorText(e));
      })
      .finally(() => loads.current.pending--);
  };
  const setList = (change: T[] | null | ((list: T[] | null) => T[] | null)) => {
    setShown(change);
    if (loads.current.pending > 0) void reload();
  };
  useEffect(() => {
    void reload();
  }, []);
  return { list, setList, error, reload };
}

/** A member's picture, or their initials; base is the server's URL (pictures are its files). */
export function Avatar(props: { base: string; member?: Member; size?: number }) {
  const m = props.member;
  const size = props.size ?? 36;
  const name = m ? m.displayName || m.username : "?";
  if (m?.avatarUrl) {
    return <img class="avatar" src={absUrl(props.base, m.avatarUrl)} alt="" width={size} height={size} />;
  }
  // Initials on a colour that stays the same for a member.
  let hash = 0;
  for (const ch of m?.id ?? name) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  return (
    <span class={`avatar avatar-initials hue-${Math.abs(hash) % 8}`} aria-hidden="true" data-size={size}>
      {initials(name)}
    </span>
  );
}

function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const first = [...(words[0] ?? "?")][0] ?? "?";
  const second = words.length > 1 ? [...words[words.length - 1]][0] ?? "" : "";
  return (first + second).toUpperCase();
}

/** A member's presence in words; unknown while the connection is lost (State.lost). */
export function presenceLabel(p: Presence | undefined, unknown = false): string {
  if (unknown) return "unknown";
  switch (p) {
    case Presence.ONLINE:
      return "online";
    case Presence.AWAY:
      return "away";
    default:
      return "offline";
  }
}

export function PresenceDot(props: { presence?: Presence; unknown?: boolean }) {
  const label = presenceLabel(props.presence, props.unknown);
  return <span class={"presence presence-" + label} role="img" aria-label={label} title={label} />;
}

/** The mark of a member who came with an imported history (Member.imported: no account here). */
export function ImportedTag() {
  return (
    <span class="tag tag-imported" title="Came with the community's imported history; has no account here">
      imported
    </span>
  );
}

/** The phone's menu button, with a dot while another channel has something unread (unread). */
export function MenuButton(props: { unread: number; onMenu: () => void }) {
  const { unread } = props;
  return (
    <button
      type="button"
      class="icon-button menu-button"
      aria-label={unread > 0 ? `Open the channel list (${unread} with unread messages)` : "Open the channel list"}
      onClick={props.onMenu}
    >
      ☰{unread > 0 && <span class="menu-dot" aria-hidden="true" />}
    </button>
  );
}

/** A modal dialog (the native <dialog>: focus stays inside, Escape closes it). */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (d && !d.open) d.showModal();
    return () => {
      // Closed with Escape or Close, the browser gives the focus back to what opened the
      // dialog; one taken away by what was done in it (an emoji picked, a conversation opened)
      // would leave the focus nowhere: it goes back the same way, after the dialog has gone.
      setTimeout(() => {
        if (!opener?.isConnected || (document.activeElement && document.activeElement !== document.body)) return;
        // A control that shows only while its container has the focus (a message's toolbar):
        // the container first.
        opener.closest<HTMLElement>("[tabindex='-1']")?.focus({ preventScroll: true });
        opener.focus({ preventScroll: true });
      });
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={props.wide ? "dialog dialog-wide" : "dialog"}
      aria-label={props.title}
      onClose={props.onClose}
      onClick={(e) => {
        // A click on the backdrop (the dialog element itself, outside its box) closes it.
        if (e.target === ref.current) ref.current?.close();
      }}
    >
      <div class="dialog-box">
        <header class="dialog-head">
          <h2>{props.title}</h2>
          <button type="button" class="icon-button" aria-label="Close" onClick={() => ref.current?.close()}>
            ✕
          </button>
        </header>
        {props.children}
      </div>
    </dialog>
  );
}

/**
 * What the person is told (Commands.tell): errors, which stay until dismissed, above info, which
 * goes by itself. Each error is announced once, as it comes, by an alert of its own (an element
 * with role="alert" added to the page); info by a polite region that is always there. A notice
 * is dismissed with its ✕, or with Escape when no dialog or drawer takes it and nothing else
 * did (the composer's mention list, an edit box): the focused notice, else the newest.
 */
export function Notices(props: { store: Store; act: Pick<Commands, "dismiss"> }) {
  const { store, act } = props;
  useStore(store, "notices");
  const area = useRef<HTMLDivElement>(null);

  // The focus on a notice's ✕ would be lost with it: it goes to another notice's, else to the
  // channel's message box.
  const dismiss = (id: number) => {
    const el = area.current;
    const focused = !!el && el.contains(document.activeElement);
    act.dismiss(id);
    if (!focused || !el) return;
    const next = [...el.querySelectorAll<HTMLElement>("[data-notice]")].find((n) => n.dataset.notice !== String(id));
    if (next) next.querySelector<HTMLElement>("button")?.focus();
    else focusOpened(document.querySelector<HTMLElement>(".main .composer .composer-input"), document.querySelector<HTMLElement>(".main .message-list"));
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented || store.notices.length === 0) return;
      if (document.querySelector("dialog[open], .drawer-open")) return;
      e.preventDefault();
      const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>("[data-notice]");
      dismiss(focused ? Number(focused.dataset.notice) : store.notices[store.notices.length - 1].id);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [store]);

  const row = (n: Notice) => {
    const textId = `notice-${n.id}`;
    const text = (
      <>
        {n.text}
        {n.count > 1 && <span class="notice-count"> ({n.count} times)</span>}
      </>
    );
    return (
      <div key={n.id} class={`notice notice-${n.kind}`} data-notice={n.id}>
        {n.kind === "error" ? (
          <p class="notice-text" id={textId} role="alert">
            <span class="notice-mark" aria-hidden="true">
              ⚠
            </span>{" "}
            {text}
          </p>
        ) : (
          <p class="notice-text" id={textId}>
            {text}
          </p>
        )}
        <button type="button" class="icon-button" aria-label="Dismiss" aria-describedby={textId} onClick={() => dismiss(n.id)}>
          ✕
        </button>
      </div>
    );
  };
  return (
    <div class="notices" ref={area}>
      {store.notices.filter((n) => n.kind === "error").map(row)}
      <div class="notices-info" role="status" aria-live="polite">
        {store.notices.filter((n) => n.kind === "info").map(row)}
      </div>
    </div>
  );
}

const timeFmt = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" });
const dayFmt = new Intl.DateTimeFormat(undefined, { weekday: "long", month: "long", day: "numeric", year: "numeric" });
const fullFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" });

export function formatTime(ms: bigint | number): string {
  return timeFmt.format(Number(ms));
}

export function formatDay(ms: bigint | number): string {
  return dayFmt.format(Number(ms));
}

export function formatFull(ms: bigint | number): string {
  return fullFmt.format(Number(ms));
}

export function dayKey(ms: bigint | number): string {
  const d = new Date(Number(ms));
  return `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;
}

/**
 * Gives the focus to what was just opened: its text box, except on a touch screen (a coarse
 * pointer), where a focused box would raise the on-screen keyboard over what was opened; there
 * the place itself (a panel, a message list) takes it.
 */
export function focusOpened(box: HTMLElement | null | undefined, place: HTMLElement | null | undefined): void {
  if (box && !window.matchMedia("(pointer: coarse)").matches) box.focus();
  else place?.focus();
}

/**
 * Escape closes a panel beside the channel (a thread, the pins): once the open dialog, the
 * phone's drawer and the notices (ui/common.tsx, Notices) have had it, and unless something in
 * the panel took the key (an edit cancelled, a mention list closed).
 */
export function usePanelEscape(store: Pick<Store, "notices">, onClose: () => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented || store.notices.length > 0) return;
      if (!document.querySelector("dialog[open], .drawer-open")) onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
}

/**
 * Grows a text box with its text (up to its CSS max-height), on every change of value. The box
 * is measured at its natural height with its container held at its size meanwhile: else the
 * page around would take the room for a moment, and the message list above, grown, would lose
 * its place at the bottom (a browser keeps a scroll position in range by moving it).
 */
export function useAutoGrow(ref: { current: HTMLTextAreaElement | null }, value: string): void {
  useLayoutEffect(() => {
    const el = ref.current;
    const box = el?.parentElement;
    if (!el || !box) return;
    const held = box.style.height;
    box.style.height = box.offsetHeight + "px";
    el.style.height = "auto";
    el.style.height = el.scrollHeight + 2 + "px";
    box.style.height = held;
  }, [value]);
}

/** Puts text on the clipboard; false when the browser would not. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (a page that is not a secure context): a selection copied the old way.
    const box = document.createElement("textarea");
    box.value = text;
    box.setAttribute("readonly", "");
    box.style.position = "fixed";
    box.style.opacity = "0";
    document.body.append(box);
    box.select();
    const ok = document.execCommand("copy");
    box.remove();
    return ok;
  }
}
