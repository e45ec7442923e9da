// A channel's slowmode, in its settings (whoever may change the channel: admins and the owner):
// how often each member below moderator may send there, thread replies included. Off, or one
// message every 5 seconds to every 6 hours.

import { useState } from "preact/hooks";
import type { Channel } from "../../gen/svc/v1/types_pb";
import type { Commands } from "../../state/commands";
import { lengthText, SLOWMODES } from "../moderation/time";
import { Outcome, useAction } from "./parts";

export function SlowmodeField(props: { act: Pick<Commands, "updateChannel">; channel: Channel }) {
  const { act, channel } = props;
  const [value, setValue] = useState(channel.slowmodeS);
  const action = useAction();
  // A value set elsewhere (through the API) that the list does not offer is offered too.
  const choices = SLOWMODES.includes(channel.slowmodeS) ? SLOWMODES : [...SLOWMODES, channel.slowmodeS].sort((a, b) => a - b);
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(() => act.updateChannel({ channelId: channel.id, slowmodeS: value }), "Saved.");
  };
  return (
    <form class="form" onSubmit={save} aria-labelledby="slowmode-title">
      <h3 id="slowmode-title" class="form-title">
        Slowmode
      </h3>
      <div class="field-row slowmode-row">
        <label class="field">
          <span>Each member may send</span>
          <select class="input" value={value} onChange={(e) => setValue(Number(e.currentTarget.value))}>
            {choices.map((s) => (
              <option key={s} value={s}>
                {s === 0 ? "As often as they like (off)" : `One message every ${lengthText(s)}`}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="button button-primary" disabled={action.busy || value === channel.slowmodeS}>
          Save
        </button>
      </div>
      <p class="muted small">Thread replies count too. Moderators and up are not slowed down.</p>
      <Outcome action={action} />
    </form>
  );
}
