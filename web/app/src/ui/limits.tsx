// How a field with a limit of the server's behaves (docs/decisions.md, "The browser client"):
// it stays editable past the limit, so that nothing typed or pasted is cut off unseen; a note
// under it gives the count as the server counts it (lib/chars: characters are code points, not
// UTF-16 units), or how much is too many; the field is marked invalid and its form's submit
// button is disabled until it fits. HTML maxLength is not used: it counts UTF-16 units.

import type { ComponentChildren } from "preact";
import { type Limit, limitError, measure } from "../lib/chars";
import "./limits.css";

export type Limited = {
  /** Past the limit: the form must not be sent. */
  over: boolean;
  /** Attributes for the field: aria-invalid past the limit, and the note as its description. */
  field: { "aria-invalid"?: true; "aria-describedby"?: string };
  /** The note to put under the field, or null when there is nothing to say. */
  note: ComponentChildren;
};

/**
 * Checks value (as it will be sent) against limit. The count shows when counter is set, or once
 * the value is at 80% of the limit; hint follows the count (e.g. where the text is shown).
 * id is the note's element id, for aria-describedby (useId, one per field).
 */
export function limited(id: string, value: string, limit: Limit, opts: { counter?: boolean; hint?: string } = {}): Limited {
  const n = measure(value, limit);
  const error = limitError(value, limit);
  let text = error;
  if (!error && (opts.counter || n >= limit.max * 0.8)) {
    text = `${n.toLocaleString("en-US")} / ${limit.max.toLocaleString("en-US")} ${limit.unit}`;
    if (opts.hint) text += "; " + opts.hint;
  }
  return {
    over: error !== "",
    field: { "aria-invalid": error ? true : undefined, "aria-describedby": text ? id : undefined },
    note: text ? (
      <span id={id} class={error ? "limit-note limit-over" : "limit-note"}>
        {text}
      </span>
    ) : null,
  };
}
