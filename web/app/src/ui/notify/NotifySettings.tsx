// The notification settings (#/settings/notifications, where the digest emails link): this
// device's notifications, what the person is notified about, whether notifications show the
// text, the email digest (where the server sends mail), the channels with settings of their own,
// and the devices that get notifications, each removable. Every change is saved as it is made.

import { useEffect, useId } from "preact/hooks";
import { ChannelKind, NotifyLevel, type PushSubscription } from "../../gen/svc/v1/types_pb";
import type { Api } from "../../lib/api";
import { channelHash } from "../../lib/router";
import type { Commands } from "../../state/commands";
import { channelTitle, memberLevel, mutedUntil, othersUnread } from "../../state/selectors";
import { useStore, type State, type Store } from "../../state/store";
import { MenuButton, useLoaded } from "../common";
import { useAccountUrl } from "../account/AccountLink";
import { Outcome, useAction } from "../admin/parts";
import { ago } from "../moderation/parts";
import { LEVEL_NAMES, mutedWords } from "./NotifyMenu";
// The page's frame and sections are the community pages' (admin.css, with ui/admin/Community).
import "./notify.css";

export type NotifySettingsCommands = Pick<Commands, "saveNotifyPrefs" | "setChannelNotify" | "enablePush" | "disablePush" | "syncPush">;

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** The address of the settings. */
export const NOTIFY_SETTINGS = "#/settings/notifications";

export function NotifySettingsPage(props: { store: Store; act: NotifySettingsCommands; api: Api; onMenu: () => void }) {
  const { store, act, api } = props;
  const state = useStore(store, "prefs", "push", "channels", "members");
  const action = useAction();
  // Whether the server mails, and where to (not part of the preferences).
  const mail = useLoaded(() => api.notify.getNotificationPrefs({}).then((r) => [{ enabled: r.mailEnabled, address: r.emailAddress }]));
  const prefs = state.prefs;
  // This device as it is now: it may have been removed from another one since the session began.
  useEffect(() => void act.syncPush(), []);
  const save = (change: Parameters<Commands["saveNotifyPrefs"]>[0]) => action.run(() => act.saveNotifyPrefs(change), "Saved.");
  const id = useId();
  return (
    <section class="community-page notify-page" aria-label="Notification settings">
      <header class="channel-head">
        <MenuButton unread={othersUnread(state, "")} onMenu={props.onMenu} />
        <h2 class="channel-title">Notifications</h2>
      </header>
      <div class="community-scroll">
        <div class="admin-page">
          <ThisDevice store={store} act={act} />
          <section class="admin-section" aria-labelledby={id + "-what"}>
            <h2 id={id + "-what"}>Notify me about</h2>
            {!prefs ? (
              <p class="muted">Loading…</p>
            ) : (
              <>
                <fieldset class="radio-list" disabled={action.busy} aria-labelledby={id + "-what"}>
                  {[NotifyLevel.ALL, NotifyLevel.MENTIONS, NotifyLevel.NONE].map((level) => (
                    <label key={level}>
                      <input type="radio" name={id + "-level"} checked={memberLevel(state) === level} onChange={() => save({ level })} />
                      <span>
                        {level === NotifyLevel.MENTIONS ? "Mentions, direct messages and replies to my threads" : level === NotifyLevel.ALL ? "Everything in my channels" : "Nothing"}
                      </span>
                    </label>
                  ))}
                </fieldset>
                <p class="muted small">A channel can say otherwise: its bell, at the top of the channel, sets what it notifies you about and mutes it.</p>
                <label class="check">
                  <input type="checkbox" checked={prefs.hideContent} disabled={action.busy} onChange={(e) => save({ hideContent: e.currentTarget.checked })} />
                  Hide the text of messages in notifications
                </label>
                <p class="muted small setting-note">Notifications then say “New message” instead of who wrote what: nothing shows on a locked phone’s screen.</p>
                {mail.list?.[0]?.enabled && <EmailSetting base={store.base} address={mail.list[0].address} on={prefs.email} busy={action.busy} onChange={(email) => save({ email })} />}
                <Outcome action={action} />
              </>
            )}
          </section>
          <ChannelPrefs state={state} act={act} />
          <Devices store={store} act={act} api={api} />
        </div>
      </div>
    </section>
  );
}

/** This device: notifications on or off, or why they cannot be. */
function ThisDevice(props: { store: Store; act: NotifySettingsCommands }) {
  const { act } = props;
  useStore(props.store, "push");
  const push = props.store.push;
  const id = useId();
  const text: Record<typeof push.status, string> = {
    unsupported: "This browser cannot show notifications from here (it needs the page over https, or an installed app on some phones).",
    blocked: "Notifications are blocked for this site in the browser’s settings: allow them there, then come back.",
    ask: "Notifications are off on this device.",
    off: "Notifications are off on this device.",
    on: "Notifications are on for this device: what you choose below reaches it when no tab of this community is open, or while you are away.",
  };
  return (
    <section class="admin-section" aria-labelledby={id}>
      <h2 id={id}>This device</h2>
      <div class="device-state">
        <p role="status">{text[push.status]}</p>
        {(push.status === "ask" || push.status === "off") && (
          <button type="button" class="button button-primary" disabled={push.busy} onClick={() => void act.enablePush()}>
            Turn on notifications
          </button>
        )}
        {push.status === "on" && (
          <button type="button" class="button" disabled={push.busy} onClick={() => void act.disablePush()}>
            Turn off on this device
          </button>
        )}
      </div>
      {push.error && (
        <p class="error-row" role="alert">
          Could not turn notifications on: {push.error}
        </p>
      )}
    </section>
  );
}

/** The email digest's switch, where the server sends mail. */
function EmailSetting(props: { base: string; address: string; on: boolean; busy: boolean; onChange: (on: boolean) => void }) {
  const account = useAccountUrl(props.base);
  return (
    <>
      <label class="check">
        <input type="checkbox" checked={props.on} disabled={props.busy} onChange={(e) => props.onChange(e.currentTarget.checked)} />
        Email me the mentions and direct messages I have not read after 15 minutes
      </label>
      <p class="muted small setting-note">
        {props.address ? (
          <>At most one email an hour. Emails go to {props.address}.</>
        ) : account ? (
          <>
            You have no email address yet: add one on <a href={account} target="_blank" rel="noopener noreferrer">your account page</a>.
          </>
        ) : (
          <>You have no email address here: only accounts of this server’s own sign-in can add one.</>
        )}
      </p>
    </>
  );
}

/** The channels that say otherwise than the person's level, or are muted. */
function ChannelPrefs(props: { state: State; act: NotifySettingsCommands }) {
  const { state, act } = props;
  const id = useId();
  const now = Date.now();
  const rows = (state.prefs?.channels ?? []).filter((c) => state.channels.has(c.channelId) && (c.level !== NotifyLevel.UNSPECIFIED || mutedUntil(state, c.channelId, now) !== 0));
  if (rows.length === 0) return null;
  return (
    <section class="admin-section" aria-labelledby={id}>
      <h2 id={id}>Channels with their own settings</h2>
      <ul class="channel-prefs">
        {rows.map((c) => {
          const ch = state.channels.get(c.channelId)!;
          const title = ch.kind === ChannelKind.DM ? channelTitle(state, ch) : "#" + ch.name;
          const muted = mutedUntil(state, c.channelId, now);
          const says = [c.level !== NotifyLevel.UNSPECIFIED && LEVEL_NAMES[c.level], muted !== 0 && "muted " + mutedWords(muted, now)].filter(Boolean).join(", ");
          return (
            <li key={c.channelId} class="channel-pref">
              <span class="channel-pref-names">
                <a class="channel-pref-name" href={channelHash(ch.id)}>
                  {title}
                </a>
                <span class="muted small">{says}</span>
              </span>
              <button type="button" class="button" aria-label={`Back to the default for ${title}`} onClick={() => act.setChannelNotify(ch.id, { level: NotifyLevel.UNSPECIFIED, mutedUntilMs: 0 })}>
                Reset
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** The devices that get the person's notifications (ListPushSubscriptions), each removable. */
function Devices(props: { store: Store; act: NotifySettingsCommands; api: Api }) {
  const { store, act, api } = props;
  useStore(store, "push");
  const push = store.push;
  const { list, setList, error, reload } = useLoaded<PushSubscription>(() => api.notify.listPushSubscriptions({}).then((r) => r.subscriptions));
  // This device turned on or off: the list changed.
  useEffect(() => {
    void reload();
  }, [push.status, push.id]);
  const action = useAction();
  const id = useId();
  const remove = (s: PushSubscription) =>
    action.run(async () => {
      if (s.id === push.id) await act.disablePush();
      else await api.notify.removePushSubscription({ id: s.id });
      setList((l) => l && l.filter((x) => x.id !== s.id));
    });
  return (
    <section class="admin-section" aria-labelledby={id}>
      <h2 id={id}>Devices that get notifications</h2>
      {error && (
        <p class="error-row" role="alert">
          {error}
        </p>
      )}
      {list && list.length === 0 && <p class="muted">None yet: turn notifications on on a device to see it here.</p>}
      {list && list.length > 0 && (
        <ul class="device-list" aria-label="Devices">
          {list.map((s) => {
            const name = (s.deviceName || "A device") + (s.id === push.id ? " (this device)" : "");
            return (
              <li key={s.id} class="device-item" aria-label={name}>
                <span class="device-names">
                  <span class="device-name">{name}</span>
                  <span class="muted small">
                    Added {dateFmt.format(Number(s.createdAtMs))} · {s.lastSuccessMs > 0n ? `last notified ${ago(s.lastSuccessMs)}` : "not notified yet"}
                  </span>
                </span>
                <button type="button" class="button" disabled={action.busy} aria-label={`Remove ${name}`} onClick={() => remove(s)}>
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <Outcome action={action} />
    </section>
  );
}
