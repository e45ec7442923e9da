// A channel's notifications, from the bell in its header: what it notifies the person about
// (everything, mentions, nothing, or their own level), a mute for an hour, eight hours or until
// they unmute, and the way to the notification settings. The menu follows the ARIA menu pattern:
// arrow keys move, Escape closes and gives the focus back to the bell.

import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ChannelKind, NotifyLevel, type Channel } from "../../gen/svc/v1/types_pb";
import { navigate } from "../../lib/router";
import type { Commands } from "../../state/commands";
import type { PushState } from "../../state/push";
import { channelPrefs, memberLevel, mutedUntil, notifyLevel } from "../../state/selectors";
import { useStore, type State, type Store } from "../../state/store";
import { formatFull, formatTime } from "../common";
import "./notify.css";

/** How the screens name a level: a channel's, and the person's own (MENTIONS counts DMs). */
export const LEVEL_NAMES: Record<number, string> = {
  [NotifyLevel.ALL]: "Everything",
  [NotifyLevel.MENTIONS]: "Mentions",
  [NotifyLevel.NONE]: "Nothing",
};

const HOUR = 3_600_000;

/** Until when a mute lasts, in words: "until 3:45 PM", "until you unmute". */
export function mutedWords(until: number, now: number): string {
  if (until === -1) return "until you unmute";
  return "until " + (until - now < 20 * HOUR ? formatTime(until) : formatFull(until));
}

export type NotifyMenuCommands = Pick<Commands, "setChannelNotify" | "enablePush">;

/** The bell in a channel's (or a DM's) header, and its menu. */
export function ChannelNotifyButton(props: { store: Store; act: NotifyMenuCommands; channel: Channel }) {
  const { store, act, channel } = props;
  const state = useStore(store, "prefs", "push", "members");
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const now = Date.now();
  const muted = mutedUntil(state, channel.id, now);
  const level = notifyLevel(state, channel.id);
  const quiet = muted !== 0 || level === NotifyLevel.NONE;
  const name = channel.kind === ChannelKind.DM ? "this conversation" : "#" + channel.name;
  const said = muted !== 0 ? `muted ${mutedWords(muted, now)}` : LEVEL_NAMES[level].toLowerCase();
  const close = (back: boolean) => {
    setOpen(false);
    if (back) button.current?.focus();
  };
  return (
    <span class="notify-anchor">
      <button
        ref={button}
        type="button"
        class={quiet ? "icon-button notify-button notify-quiet" : "icon-button notify-button"}
        aria-label={`Notifications of ${name}: ${said}`}
        title={`Notifications: ${said}`}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        <span aria-hidden="true">{quiet ? "🔕" : "🔔"}</span>
      </button>
      {open && <NotifyMenu state={state} push={store.push} act={act} channel={channel} name={name} onClose={close} />}
    </span>
  );
}

function NotifyMenu(props: { state: State; push: PushState; act: NotifyMenuCommands; channel: Channel; name: string; onClose: (back: boolean) => void }) {
  const { state, act, channel, push } = props;
  const ref = useRef<HTMLDivElement>(null);
  const now = Date.now();
  const own = channelPrefs(state, channel.id)?.level ?? NotifyLevel.UNSPECIFIED;
  const muted = mutedUntil(state, channel.id, now);
  const close = useRef(props.onClose);
  close.current = props.onClose;

  // A layout effect: the focus is in the menu from the render that shows it, so a key pressed
  // as soon as it shows (Escape, an arrow) goes to the menu.
  useLayoutEffect(() => {
    const el = ref.current;
    (el?.querySelector<HTMLElement>('[aria-checked="true"]') ?? el?.querySelector<HTMLElement>("[role^=menuitem]"))?.focus();
    // A press anywhere else closes it (the bell's own click toggles it).
    const outside = (e: PointerEvent) => {
      if (!el?.parentElement?.contains(e.target as Node)) close.current(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, []);

  const keys = (e: KeyboardEvent) => {
    const items = [...(ref.current?.querySelectorAll<HTMLElement>("[role^=menuitem]") ?? [])];
    const i = items.indexOf(document.activeElement as HTMLElement);
    let next = -1;
    if (e.key === "ArrowDown") next = (i + 1) % items.length;
    else if (e.key === "ArrowUp") next = (i - 1 + items.length) % items.length;
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = items.length - 1;
    else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      props.onClose(true);
    } else if (e.key === "Tab") props.onClose(false);
    if (next >= 0) {
      e.preventDefault();
      items[next]?.focus();
    }
  };

  const pick = (fn: () => unknown) => () => {
    props.onClose(true);
    void fn();
  };
  const setLevel = (level: NotifyLevel) => pick(() => act.setChannelNotify(channel.id, { level }));
  const mute = (until: number) => pick(() => act.setChannelNotify(channel.id, { mutedUntilMs: until }));
  const radio = (level: NotifyLevel, label: string) => (
    <button type="button" role="menuitemradio" aria-checked={own === level} tabIndex={-1} class="menu-item" onClick={setLevel(level)}>
      <span class="menu-check" aria-hidden="true" />
      {label}
    </button>
  );
  const item = (label: string, onClick: () => void) => (
    <button type="button" role="menuitem" tabIndex={-1} class="menu-item" onClick={onClick}>
      <span class="menu-check" aria-hidden="true" />
      {label}
    </button>
  );
  return (
    <div class="notify-menu" role="menu" aria-label={`Notifications of ${props.name}`} ref={ref} onKeyDown={keys}>
      <div role="group" aria-labelledby={`notify-level-${channel.id}`}>
        <p class="menu-title" id={`notify-level-${channel.id}`}>
          Notify me about
        </p>
        {radio(NotifyLevel.UNSPECIFIED, `Default (${LEVEL_NAMES[memberLevel(state)].toLowerCase()})`)}
        {radio(NotifyLevel.ALL, "Everything")}
        {radio(NotifyLevel.MENTIONS, "Mentions")}
        {radio(NotifyLevel.NONE, "Nothing")}
      </div>
      <div class="menu-separator" role="separator" />
      {muted !== 0 ? (
        <div role="group" aria-label={`Muted ${mutedWords(muted, now)}`}>
          <p class="menu-title" aria-hidden="true">
            Muted {mutedWords(muted, now)}
          </p>
          {item("Unmute", mute(0))}
        </div>
      ) : (
        <div role="group" aria-label="Mute">
          {item("Mute for 1 hour", mute(now + HOUR))}
          {item("Mute for 8 hours", mute(now + 8 * HOUR))}
          {item("Mute until I unmute", mute(-1))}
        </div>
      )}
      <div class="menu-separator" role="separator" />
      {(push.status === "ask" || push.status === "off") && item("Turn on notifications on this device", pick(() => act.enablePush()))}
      {item("Notification settings", pick(() => navigate("#/settings/notifications")))}
    </div>
  );
}
