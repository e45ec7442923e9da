// Reporting a message to the moderators, from the message's actions: the message as it is now
// and a note of up to 1,000 characters. The server keeps a copy of the message and never tells
// its author who reported it; a refusal (the rate limit, a message deleted meanwhile) is shown
// in the server's words.

import { useState } from "preact/hooks";
import type { Message } from "../../gen/svc/v1/types_pb";
import { errorText } from "../../lib/api";
import { chars, LIMITS, limitError } from "../../lib/chars";
import { plainText } from "../../lib/markdown";
import type { Api } from "../../lib/api";
import type { State } from "../../state/store";
import { Dialog, ErrorRow } from "../common";
import "./moderation.css";
import { memberName, nameOf } from "../../state/selectors";

export function ReportDialog(props: { api: Api; members: State["members"]; message: Message; onClose: () => void }) {
  const { message: m } = props;
  const state = { members: props.members };
  const [note, setNote] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  // Characters as the server counts them (code points, lib/chars), of the note as sent.
  const length = chars(note.trim());
  const tooLong = limitError(note.trim(), LIMITS.reportNote);
  const over = tooLong !== "";
  const name = nameOf(state, m.authorId);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (over) return;
    setError("");
    setBusy(true);
    try {
      await props.api.server.reportMessage({ messageId: m.id, note: note.trim() });
      setSent(true);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Report a message" onClose={props.onClose}>
      <blockquote class="report-quote">
        <p class="report-quote-author">{name}</p>
        <p class="report-quote-text">{plainText(m.text, (id) => memberName(state, id)) || "(a file)"}</p>
      </blockquote>
      {sent ? (
        <>
          <p class="ok-row" role="status">
            Reported. The moderators will look at it; {name} is not told who reported it.
          </p>
          <div class="dialog-actions">
            <button type="button" class="button button-primary" onClick={props.onClose}>
              Done
            </button>
          </div>
        </>
      ) : (
        <form class="form" onSubmit={submit}>
          <label class="field">
            <span>What is wrong with it? (optional)</span>
            <textarea
              class="input"
              rows={4}
              value={note}
              aria-describedby="report-count"
              aria-invalid={over}
              autoFocus
              onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)}
            />
          </label>
          <p id="report-count" class={over ? "report-count error-row" : "report-count muted small"}>
            {over ? tooLong : `${length.toLocaleString("en-US")} / ${LIMITS.reportNote.max.toLocaleString("en-US")}`}
          </p>
          <p class="muted small">The moderators see the message, your note and your name; {name} is not told who reported it.</p>
          <ErrorRow error={error} />
          <div class="dialog-actions">
            <button type="button" class="button" onClick={props.onClose}>
              Cancel
            </button>
            <button type="submit" class="button button-primary" disabled={busy || over}>
              {busy ? "Reporting…" : "Report"}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
