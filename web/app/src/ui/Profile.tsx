// The person's own profile and settings: name, username, bio, status, picture (an upload with
// a progress bar), away, the ways to the notification settings and (signed in with the built-in
// issuer) the account page, signing out of this server, and exporting the person's data.

import { useId, useState } from "preact/hooks";
import { Presence } from "../gen/svc/v1/types_pb";
import { errorText } from "../lib/api";
import { LIMITS } from "../lib/chars";
import { upload } from "../lib/upload";
import type { Api } from "../lib/api";
import type { Commands } from "../state/commands";
import { useStore, type Store } from "../state/store";
import { Avatar, Dialog, ErrorRow } from "./common";
import { limited } from "./limits";
import { AccountLink } from "./account/AccountLink";
import { ExportData } from "./account/ExportData";
import { NOTIFY_SETTINGS } from "./notify/NotifySettings";

export function Profile(props: { store: Store; act: Pick<Commands, "saveProfile" | "setAway" | "run">; api: Api; onClose: () => void; onSignOut: () => void }) {
  const { store, act, api } = props;
  const state = useStore(store, "me", "members");
  const me = state.me!;
  const [displayName, setDisplayName] = useState(me.displayName);
  const [username, setUsername] = useState(me.username);
  const [bio, setBio] = useState(me.bio);
  const [statusEmoji, setStatusEmoji] = useState(me.statusEmoji);
  const [statusText, setStatusText] = useState(me.statusText);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState("");
  // What was last saved: "Saved." shows while the fields still hold it, not after a change.
  const [saved, setSaved] = useState("");
  const away = state.members.get(me.id)?.presence === Presence.AWAY;
  const id = useId();
  const checks = {
    displayName: limited(id + "-name", displayName, LIMITS.displayName),
    username: limited(id + "-username", username, LIMITS.username),
    statusEmoji: limited(id + "-emoji", statusEmoji, LIMITS.statusEmoji),
    statusText: limited(id + "-status", statusText, LIMITS.statusText),
    bio: limited(id + "-bio", bio, LIMITS.bio, { counter: true }),
  };
  const over = Object.values(checks).some((c) => c.over);
  const fields = JSON.stringify([displayName, username, bio, statusEmoji, statusText]);

  const save = async (e: Event) => {
    e.preventDefault();
    if (over) return;
    setError("");
    setSaved("");
    try {
      await act.saveProfile({ displayName, username, bio, statusEmoji, statusText });
      setSaved(fields);
    } catch (err) {
      setError(errorText(err));
    }
  };

  const setAvatar = async (file: File | undefined) => {
    if (!file) return;
    setError("");
    setProgress(0);
    try {
      const a = await upload(api, file, setProgress).promise;
      await act.saveProfile({ avatarUrl: a.url });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setProgress(null);
    }
  };

  return (
    <Dialog title="Your profile" onClose={props.onClose}>
      <form class="form" onSubmit={save}>
        <div class="avatar-row">
          <Avatar base={store.base} member={state.members.get(me.id) ?? me} size={64} />
          <div class="avatar-controls">
            <label class="button">
              Change picture
              <input type="file" accept="image/png,image/jpeg,image/gif,image/webp,image/avif" class="visually-hidden" onChange={(e) => setAvatar((e.target as HTMLInputElement).files?.[0])} />
            </label>
            {me.avatarUrl && (
              <button type="button" class="button" onClick={() => act.run("Could not remove the picture", () => act.saveProfile({ avatarUrl: "" }))}>
                Remove picture
              </button>
            )}
            {progress !== null && <progress max={1} value={progress} aria-label="Uploading your picture" />}
          </div>
        </div>
        <label class="field">
          <span>Display name</span>
          <input class="input" value={displayName} {...checks.displayName.field} onInput={(e) => setDisplayName((e.target as HTMLInputElement).value)} />
          {checks.displayName.note}
        </label>
        <label class="field">
          <span>Username</span>
          <input class="input" value={username} pattern="[a-z0-9_.\-]{2,32}" {...checks.username.field} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} />
          {checks.username.note}
        </label>
        <div class="field-row">
          <label class="field field-small">
            <span>Status emoji</span>
            <input class="input" value={statusEmoji} {...checks.statusEmoji.field} onInput={(e) => setStatusEmoji((e.target as HTMLInputElement).value)} />
            {checks.statusEmoji.note}
          </label>
          <label class="field">
            <span>Status</span>
            <input class="input" value={statusText} {...checks.statusText.field} onInput={(e) => setStatusText((e.target as HTMLInputElement).value)} />
            {checks.statusText.note}
          </label>
        </div>
        <label class="field">
          <span>About you</span>
          <textarea class="input" rows={3} value={bio} {...checks.bio.field} onInput={(e) => setBio((e.target as HTMLTextAreaElement).value)} />
          {checks.bio.note}
        </label>
        <ErrorRow error={error} />
        {saved === fields && (
          <p class="ok-row" role="status">
            Saved.
          </p>
        )}
        <div class="dialog-actions">
          <button type="submit" class="button button-primary" disabled={over}>
            Save
          </button>
        </div>
      </form>
      <hr />
      <div class="settings">
        <label class="check">
          <input type="checkbox" checked={away} onChange={() => act.setAway(!away)} />
          Show me as away
        </label>
        <a class="button" href={NOTIFY_SETTINGS} onClick={props.onClose}>
          Notification settings
        </a>
        <AccountLink base={store.base} />
        <button type="button" class="button button-danger" onClick={props.onSignOut}>
          Sign out of {state.info?.name ?? "this community"}
        </button>
      </div>
      <hr />
      <ExportData base={store.base} api={api} memberId={me.id} />
    </Dialog>
  );
}
