// The composer's poll form (EXTENSIONS.md 4), loaded when first opened (PollButton.tsx): a
// question, 2 to 10 distinct options, whether voters may pick several, and when it closes
// (never, in an hour, a day, a week, or at a date and time from a minute to 30 days ahead). The
// limits are checked here as the server checks them, and the server's refusal shows in the
// form. Not in threads (the thread's composer has no Poll entry).

import { useRef, useState } from "preact/hooks";
import { errorText } from "../../lib/api";
import { chars, limitError, type Limit } from "../../lib/chars";
import type { Commands } from "../../state/commands";
import { newId } from "../../state/outbox";
import { Dialog } from "../common";
import "./polls.css";

const QUESTION: Limit = { max: 300, unit: "characters", what: "a question" };
const OPTION: Limit = { max: 100, unit: "characters", what: "an option" };
export const OPTIONS_MIN = 2;
export const OPTIONS_MAX = 10;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const CLOSING = { never: 0, hour: 60 * MINUTE, day: DAY, week: 7 * DAY } as const;
type Closing = keyof typeof CLOSING | "custom";

/** What is wrong with a poll as typed, or "" (options: the filled ones, trimmed). */
export function pollProblem(question: string, options: string[], closesAt: number, now: number): string {
  if (!question) return "Write the question.";
  const long = limitError(question, QUESTION);
  if (long) return long;
  if (options.length < OPTIONS_MIN) return `Give at least ${OPTIONS_MIN} options.`;
  for (const o of options) {
    const over = limitError(o, OPTION);
    if (over) return `${over} (${[...o].slice(0, 20).join("")}…)`;
  }
  const seen = new Set<string>();
  for (const o of options) {
    const k = o.toLowerCase();
    if (seen.has(k)) return `"${o}" is there twice: each option must be different.`;
    seen.add(k);
  }
  if (Number.isNaN(closesAt)) return "Pick the date and time it closes.";
  if (closesAt !== 0 && closesAt < now + MINUTE) return "It must close at least a minute from now.";
  if (closesAt > now + 30 * DAY) return "It must close within 30 days.";
  return "";
}

export function PollDialog(props: { act: Pick<Commands, "sendPoll">; channelId: string; onClose: () => void }) {
  const [question, setQuestion] = useState("");
  const [options, setOptions] = useState(["", ""]);
  const [multiple, setMultiple] = useState(false);
  const [closing, setClosing] = useState<Closing>("never");
  const [custom, setCustom] = useState("");
  const [tried, setTried] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // One id for every try of this form: a try whose answer was lost makes no second poll.
  const clientId = useRef(newId());
  const form = useRef<HTMLFormElement>(null);

  const closesAt = (now: number) => (closing === "custom" ? (custom ? new Date(custom).getTime() : NaN) : closing === "never" ? 0 : now + CLOSING[closing]);
  const filled = options.map((o) => o.trim()).filter((o) => o !== "");
  const now = Date.now();
  const problem = pollProblem(question.trim(), filled, closesAt(now), now);
  // Over a limit shows at once; what is missing once the person tries to post.
  const shown = tried || /too many|twice/.test(problem) ? problem : "";

  const setOption = (i: number, v: string) => setOptions(options.map((o, j) => (j === i ? v : o)));
  const focusOption = (i: number) => requestAnimationFrame(() => form.current?.querySelectorAll<HTMLInputElement>(".poll-option-input")[i]?.focus());
  const addOption = () => {
    if (options.length >= OPTIONS_MAX) return;
    setOptions([...options, ""]);
    focusOption(options.length);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setTried(true);
    const at = Date.now();
    if (busy || pollProblem(question.trim(), filled, closesAt(at), at)) return;
    setBusy(true);
    setError("");
    try {
      await props.act.sendPoll(props.channelId, { question: question.trim(), options: filled, multiple, closesAtMs: BigInt(closesAt(at)) }, clientId.current);
      props.onClose();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  // A date-time field's bounds, in the local time it shows.
  const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * MINUTE).toISOString().slice(0, 16);
  return (
    <Dialog title="Create a poll" onClose={props.onClose}>
      <form class="poll-form" ref={form} onSubmit={submit} noValidate>
        <label class="field">
          <span class="field-label">Question</span>
          <input
            class="input"
            value={question}
            autoFocus
            aria-invalid={limitError(question.trim(), QUESTION) ? true : undefined}
            placeholder="Where should we meet?"
            onInput={(e) => setQuestion((e.target as HTMLInputElement).value)}
          />
          <span class="muted small poll-count-note">{chars(question.trim())} / 300</span>
        </label>
        <fieldset class="poll-form-options">
          <legend class="field-label">Options</legend>
          {options.map((o, i) => (
            <div class="poll-form-option" key={i}>
              <input
                class="input poll-option-input"
                value={o}
                aria-label={`Option ${i + 1}`}
                placeholder={`Option ${i + 1}`}
                aria-invalid={limitError(o.trim(), OPTION) ? true : undefined}
                onInput={(e) => setOption(i, (e.target as HTMLInputElement).value)}
                onKeyDown={(e) => {
                  // Enter goes on to the next option, adding one at the end.
                  if (e.key !== "Enter" || e.isComposing) return;
                  e.preventDefault();
                  if (i + 1 < options.length) focusOption(i + 1);
                  else addOption();
                }}
              />
              {options.length > OPTIONS_MIN && (
                <button type="button" class="icon-button" aria-label={`Remove option ${i + 1}`} onClick={() => setOptions(options.filter((_, j) => j !== i))}>
                  ✕
                </button>
              )}
            </div>
          ))}
          {options.length < OPTIONS_MAX && (
            <button type="button" class="button poll-add" onClick={addOption}>
              Add an option
            </button>
          )}
        </fieldset>
        <label class="check poll-check">
          <input type="checkbox" checked={multiple} onChange={(e) => setMultiple((e.target as HTMLInputElement).checked)} />
          Voters may choose more than one option
        </label>
        <div class="poll-closing">
          <label class="field">
            <span class="field-label">Closes</span>
            <select class="input" value={closing} onChange={(e) => setClosing((e.target as HTMLSelectElement).value as Closing)}>
              <option value="never">When closed by hand</option>
              <option value="hour">In 1 hour</option>
              <option value="day">In 1 day</option>
              <option value="week">In 1 week</option>
              <option value="custom">At a date and time…</option>
            </select>
          </label>
          {closing === "custom" && (
            <label class="field">
              <span class="field-label">Date and time</span>
              <input
                class="input"
                type="datetime-local"
                value={custom}
                min={local(now + MINUTE)}
                max={local(now + 30 * DAY)}
                onInput={(e) => setCustom((e.target as HTMLInputElement).value)}
              />
            </label>
          )}
        </div>
        {(shown || error) && (
          <p class="error-row" role="alert">
            {shown || error}
          </p>
        )}
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="button button-primary" disabled={busy}>
            Post poll
          </button>
        </div>
      </form>
    </Dialog>
  );
}
