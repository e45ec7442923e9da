// Timeouts on a member's card (ui/moderation/MemberModeration.tsx): the lengths a moderator
// picks from, 60 seconds to a week, and until when a member is timed out, which everyone sees.

import type { Member } from "../../gen/svc/v1/types_pb";
import { timedOutUntil } from "../../state/selectors";
import { lengthText, TIMEOUTS, untilText } from "./time";

/** "Timed out until 4:05 PM", on the card of a member timed out. */
export function TimeoutStatus(props: { member: Member }) {
  const until = timedOutUntil(props.member);
  if (!until) return null;
  return (
    <p class="timeout-status">
      <span aria-hidden="true">⏳</span> Timed out until {untilText(until)}
    </p>
  );
}

/** The lengths of a timeout, as a row of choices. */
export function TimeoutLengths(props: { value: number; onChange: (seconds: number) => void }) {
  return (
    <div class="timeout-lengths" role="radiogroup" aria-label="How long">
      {TIMEOUTS.map((s) => (
        <label key={s} class={s === props.value ? "timeout-length timeout-length-on" : "timeout-length"}>
          <input type="radio" name="timeout-length" class="visually-hidden" checked={s === props.value} onChange={() => props.onChange(s)} />
          {lengthText(s)}
        </label>
      ))}
    </div>
  );
}
