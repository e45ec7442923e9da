// Small pieces every screen uses: avatars, presence dots, modal dialogs, the toast, a refusal's
// message, times.

import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { Presence, type Member } from "../gen/svc/v1/types_pb";
import { absUrl, errorText } from "../lib/api";
import { useTopics } from "../lib/emitter";
import type { Session } from "../state/session";

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

export function Avatar(props: { session: Session; member?: Member; id?: string; size?: number }) {
  const { session } = props;
  const m = props.member ?? (props.id ? session.members.get(props.id) : undefined);
  const size = props.size ?? 36;
  const name = m ? m.displayName || m.username : "?";
  if (m?.avatarUrl) {
    return <img class="avatar" src={absUrl(session.base, m.avatarUrl)} alt="" width={size} height={size} />;
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

export function presenceLabel(p: Presence | undefined): string {
  switch (p) {
    case Presence.ONLINE:
      return "online";
    case Presence.AWAY:
      return "away";
    default:
      return "offline";
  }
}

export function PresenceDot(props: { presence?: Presence }) {
  const label = presenceLabel(props.presence);
  return <span class={"presence presence-" + label} role="img" aria-label={label} title={label} />;
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

export function Toast(props: { session: Session }) {
  const { session } = props;
  useTopics(session.em, "toast");
  const ref = useRef(0);
  const { text, at } = session.toast;
  useEffect(() => {
    if (!text) return;
    clearTimeout(ref.current);
    ref.current = window.setTimeout(() => {
      session.toast = { text: "", at: 0 };
      session.em.emit("toast");
    }, 6000);
  }, [at]);
  return (
    <div class="toast-area" role="status" aria-live="polite">
      {text && (
        <div class="toast">
          <span>{text}</span>
          <button
            type="button"
            class="icon-button"
            aria-label="Dismiss"
            onClick={() => {
              session.toast = { text: "", at: 0 };
              session.em.emit("toast");
            }}
          >
            ✕
          </button>
        </div>
      )}
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

/** Grows a text box with its text (up to its CSS max-height), on every change of value. */
export function useAutoGrow(ref: { current: HTMLTextAreaElement | null }, value: string): void {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = el.scrollHeight + 2 + "px";
  }, [value]);
}
