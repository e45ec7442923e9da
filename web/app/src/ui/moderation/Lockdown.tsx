// The lockdown switch at the top of the moderation screen: while on, nobody new can join (with
// or without an invite); members and bots are not affected. Admins and the owner turn it on and
// off; moderators see which it is. It is a community setting (GetServerInfo.lockdown), so it
// follows server_updated like the rest of the card.

import { isAdmin } from "../../lib/ranks";
import type { Commands } from "../../state/commands";
import { useStore, type Store } from "../../state/store";
import { Outcome, useAction } from "../admin/parts";
import "./moderation.css";

export function LockdownSwitch(props: { store: Store; act: Pick<Commands, "saveSettings"> }) {
  const state = useStore(props.store, "info", "me");
  const action = useAction();
  const on = !!state.info?.lockdown;
  const admin = isAdmin(state);
  const what = on ? "Nobody new can join, with or without an invite, until it is turned off. Members and bots are not affected." : "New people can join as usual.";
  return (
    <div class={on ? "lockdown lockdown-on" : "lockdown"}>
      <label class="lockdown-row">
        <span class="lockdown-text">
          <strong>Lockdown {on ? "is on" : "is off"}</strong>
          <span class="small">{what}</span>
        </span>
        <input
          type="checkbox"
          role="switch"
          class="switch"
          aria-label="Lockdown"
          checked={on}
          disabled={!admin || action.busy}
          onChange={(e) => action.run(() => props.act.saveSettings({ lockdown: e.currentTarget.checked }), "", "Lockdown was not changed")}
        />
      </label>
      {!admin && <p class="small muted">Admins and the owner turn it on and off.</p>}
      <Outcome action={action} />
    </div>
  );
}
