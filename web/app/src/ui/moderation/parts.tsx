// Small pieces the moderation, emoji and bot screens share: an inline confirmation, a relative
// time, and a copy to the clipboard.

import { useEffect, useRef } from "preact/hooks";
import { formatFull } from "../common";

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
