// Pins (EXTENSIONS.md 2): Pin and Unpin in a message's actions for those who may (a DM's
// members, elsewhere moderators and higher), a "Pinned by" mark on the message, and the
// channel's pins in a panel beside its messages (over them on a phone), opened from the button
// with their count in the channel's header. The pins are State (state/pins.ts): loaded when
// the channel shows, then kept by the stream; choosing one opens it in the channel.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../../gen/svc/v1/types_pb";
import { renderMarkdown } from "../../lib/markdown";
import { channelHash, navigate } from "../../lib/router";
import type { Commands } from "../../state/commands";
import { canPin, markdownContext, nameOf } from "../../state/selectors";
import { useStore, type State, type Store } from "../../state/store";
import { Avatar, ErrorRow, focusOpened, formatFull, usePanelEscape } from "../common";
import { withGroups } from "../mentions/groups";
import { openMessage } from "../search/open";
import "./pins.css";

export type PinsCommands = Pick<Commands, "loadPins" | "togglePin">;

/**
 * Which channel's pins show beside it. They give way to a thread (a thread opened closes them;
 * opening them closes the thread).
 */
export function usePinsPanel(channelId: string, threadId: string) {
  const [shown, setShown] = useState("");
  const open = channelId !== "" && shown === channelId && !threadId;
  return {
    open,
    toggle: () => {
      if (open) return setShown("");
      setShown(channelId);
      if (threadId) navigate(channelHash(channelId));
    },
    close: () => setShown(""),
  };
}

/** The header's button: the channel's pins and their count. */
export function PinsButton(props: { store: Store; act: Pick<Commands, "loadPins">; channelId: string; open: boolean; onToggle: () => void }) {
  const { store, act, channelId } = props;
  const state = useStore(store, "pins");
  const pins = state.pins.get(channelId);
  // Loaded as the channel shows, and again after the State was (GetState after a resync).
  useEffect(() => {
    if (!pins) void act.loadPins(channelId);
  }, [channelId, !pins]);
  const count = pins?.loaded ? pins.messages.length : undefined;
  return (
    <button
      type="button"
      class={props.open ? "icon-button pins-button pins-button-open" : "icon-button pins-button"}
      aria-label={count === undefined ? "Pinned messages" : `Pinned messages (${count})`}
      aria-expanded={props.open}
      title="Pinned messages"
      onClick={props.onToggle}
    >
      <span aria-hidden="true">📌</span>
      {count !== undefined && count > 0 && (
        <span class="pins-count" aria-hidden="true">
          {count}
        </span>
      )}
    </button>
  );
}

/** The channel's pins beside its messages, newest pin first. */
export function PinsPanel(props: { store: Store; act: PinsCommands; channelId: string; onClose: () => void }) {
  const { store, act, channelId } = props;
  const state = useStore(store, "pins", "members", "me", "emoji", "channels");
  const pins = state.pins.get(channelId);
  const panel = useRef<HTMLElement>(null);

  // Opened, it has the focus (its close button: the list may be empty); closed, the header's
  // button gets it back, unless the person has put it elsewhere.
  useEffect(() => {
    focusOpened(panel.current?.querySelector<HTMLElement>(".pins-head .icon-button"), panel.current);
    return () => {
      const active = document.activeElement;
      if (active && active !== document.body && !panel.current?.contains(active)) return;
      setTimeout(() => document.querySelector<HTMLElement>(".channel-view .pins-button")?.focus());
    };
  }, []);
  usePanelEscape(store, props.onClose);

  const open = (m: Message) => {
    openMessage(store, m);
    // On a phone the panel covers the channel: it makes way for the message.
    if (window.matchMedia("(max-width: 760px)").matches) props.onClose();
  };
  const mayUnpin = canPin(state, channelId);
  return (
    <aside class="pins-panel" aria-label="Pinned messages" tabIndex={-1} ref={panel}>
      <header class="pins-head">
        <h2>
          Pinned messages{pins?.loaded && <span class="muted pins-head-count"> · {pins.messages.length}</span>}
        </h2>
        <button type="button" class="icon-button" aria-label="Close pinned messages" onClick={props.onClose}>
          ✕
        </button>
      </header>
      <div class="pins-body">
        {pins?.error && (
          <>
            <ErrorRow error={pins.error} />
            <button type="button" class="button" onClick={() => act.loadPins(channelId)}>
              Try again
            </button>
          </>
        )}
        {!pins?.loaded && !pins?.error && <p class="loading-row">Loading pinned messages…</p>}
        {pins?.loaded && pins.messages.length === 0 && (
          <p class="muted pins-empty">
            Nothing is pinned here yet. {mayUnpin ? "Pin a message from its actions to keep it here." : "Moderators can pin messages to keep them here."}
          </p>
        )}
        {pins && pins.messages.length > 0 && (
          <ul class="pins-list" aria-label="Pinned messages, newest pin first">
            {pins.messages.map((m) => (
              <li key={m.id}>
                <PinItem state={state} base={store.base} message={m} mayUnpin={mayUnpin} onOpen={() => open(m)} onUnpin={() => act.togglePin(m)} />
              </li>
            ))}
          </ul>
        )}
      </div>
    </aside>
  );
}

const shortFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

function PinItem(props: { state: State; base: string; message: Message; mayUnpin: boolean; onOpen: () => void; onUnpin: () => void }) {
  const { state, message: m } = props;
  const name = nameOf(state, m.authorId);
  const ctx = withGroups(markdownContext(state), m);
  const files = m.attachments.map((a) => a.name).join(", ");
  return (
    <article class="pin" aria-label={`${name}, ${formatFull(m.createdAtMs)}`}>
      <div class="pin-head">
        <Avatar base={props.base} member={state.members.get(m.authorId)} size={24} />
        <span class="pin-author">{name}</span>
        <time class="msg-time" title={formatFull(m.createdAtMs)}>
          {shortFmt.format(Number(m.createdAtMs))}
        </time>
      </div>
      {m.text && <div class="pin-text">{renderMarkdown(m.text, ctx)}</div>}
      {m.poll && <p class="pin-extra">📊 {m.poll.question}</p>}
      {files && <p class="pin-extra">📄 {files}</p>}
      <p class="pin-by muted small">Pinned by {nameOf(state, m.pinnedBy)}</p>
      <div class="pin-actions">
        <button type="button" class="button" onClick={props.onOpen}>
          Show in the channel
        </button>
        {props.mayUnpin && (
          <button type="button" class="button" onClick={props.onUnpin}>
            Unpin
          </button>
        )}
      </div>
    </article>
  );
}

/** Pin or Unpin in a message's toolbar, for those who may (not a thread reply). */
export function PinAction(props: { state: Pick<State, "me" | "members" | "channels">; act: Pick<Commands, "togglePin">; message: Message }) {
  const { message: m } = props;
  if (m.threadRootId || m.deleted || !canPin(props.state, m.channelId)) return null;
  const pinned = m.pinnedAtMs > 0n;
  return (
    <button
      type="button"
      class={pinned ? "icon-button pin-action pin-action-on" : "icon-button pin-action"}
      aria-label={pinned ? "Unpin message" : "Pin message"}
      title={pinned ? "Unpin" : "Pin to the channel"}
      onClick={() => props.act.togglePin(m)}
    >
      📌
    </button>
  );
}

/** The mark of a pinned message. */
export function PinnedMark(props: { state: Pick<State, "members">; message: Message }) {
  const m = props.message;
  if (m.pinnedAtMs === 0n || m.deleted) return null;
  return (
    <p class="pinned-mark" title={formatFull(m.pinnedAtMs)}>
      <span aria-hidden="true">📌</span> Pinned by {nameOf(props.state, m.pinnedBy)}
    </p>
  );
}
