// Small pieces the moderation, emoji and bot screens share: an inline confirmation (with a
// reason for the audit log, for kicks, bans and timeouts), a relative time, and a copy to the
// clipboard.

import { useEffect, useId, useRef, useState } from "preact/hooks";
import { LIMITS } from "../../lib/chars";
import { formatFull } from "../common";
import { limited } from "../limits";

/** A question with a dangerous action and Cancel, in place of the buttons that asked it. */
export function Confirm(props: { text: string; action: string; busy?: boolean; onConfirm: () => void; onCancel: () => void }) {
  const cancel = useRef<HTMLButtonElement>(null);
  // The focus goes to Cancel: Enter right after the click that asked does no harm.
  useEffect(() => cancel.current?.focus(), []);
  return (
    <div class="confirm" role="group" aria-label={props.text}>
      <span class="confirm-question">{props.text}</span>
      <span class="confirm-buttons">
        <button type="button" class="button button-danger" disabled={props.busy} onClick={props.onConfirm}>
          {props.action}
        </button>
        <button type="button" class="button" ref={cancel} onClick={props.onCancel}>
          Cancel
        </button>
      </span>
    </div>
  );
}

/**
 * Confirm with a reason (0 to 500 characters) kept in the audit log, and shown in the bans list
 * for a ban: the reason goes to onConfirm. children go between the question and the buttons
 * (a timeout's lengths).
 */
export function ReasonConfirm(props: {
  text: string;
  action: string;
  busy?: boolean;
  onConfirm: (reason: string) => void;
  onCancel: () => void;
  children?: preact.ComponentChildren;
}) {
  const [reason, setReason] = useState("");
  const id = useId();
  const check = limited(id, reason.trim(), LIMITS.reason);
  // The focus goes to the reason: what there is to do next.
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <form
      class="confirm reason-confirm"
      aria-label={props.text}
      onSubmit={(e) => {
        e.preventDefault();
        if (!check.over) props.onConfirm(reason.trim());
      }}
    >
      <span class="confirm-question">{props.text}</span>
      {props.children}
      <label class="field reason-field">
        <span>Reason (optional, kept in the audit log)</span>
        <input class="input" ref={box} value={reason} {...check.field} onInput={(e) => setReason(e.currentTarget.value)} />
        {check.note}
      </label>
      <span class="confirm-buttons">
        <button type="submit" class="button button-danger" disabled={props.busy || check.over}>
          {props.action}
        </button>
        <button type="button" class="button" onClick={props.onCancel}>
          Cancel
        </button>
      </span>
    </form>
  );
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "5 minutes ago", "yesterday"; a full date past a week. */
export function ago(ms: bigint | number, now = Date.now()): string {
  const diff = (Number(ms) - now) / 1000;
  const abs = Math.abs(diff);
  if (abs < 45) return "just now";
  if (abs < 3600) return relative.format(Math.round(diff / 60), "minute");
  if (abs < 86400) return relative.format(Math.round(diff / 3600), "hour");
  if (abs < 7 * 86400) return relative.format(Math.round(diff / 86400), "day");
  return formatFull(ms);
}

export { copyText } from "../../lib/clipboard";
