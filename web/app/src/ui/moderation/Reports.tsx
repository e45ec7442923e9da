// The reports queue, for moderators and higher: the open reports about members they outrank,
// newest first, each with the copy of the message the server took, the reporter and the note.
// From a report: open the message where it was written (not in a DM: moderators see only the
// reported message of a DM), delete it, ban its author, and resolve the report (which resolves
// every report of that message). The list is loaded when it opens and on Refresh; reports filed
// meanwhile come by the stream (report_filed), and those resolved by another moderator leave
// with their audit entry, as the badge counts them (state/reducer.ts).

import { useEffect, useState } from "preact/hooks";
import type { Message, Report } from "../../gen/svc/v1/types_pb";
import { errorText, type Api } from "../../lib/api";
import { renderMarkdown } from "../../lib/markdown";
import { canDeleteMessageOf, canRemove } from "../../lib/ranks";
import type { Commands } from "../../state/commands";
import { useStore, type State, type Store } from "../../state/store";
import { Avatar, ErrorRow, formatFull } from "../common";
import { Confirm, ReasonConfirm, ago } from "./parts";
import "./moderation.css";
import { markdownContext, nameOf, sortedReports } from "../../state/selectors";

export type ReportsCommands = Pick<Commands, "loadReports" | "resolveReport">;

export function Reports(props: { store: Store; act: ReportsCommands; api: Api; onOpenMessage: (m: Message) => void }) {
  const { store, act, api } = props;
  const state = useStore(store, "reports", "members", "channels");
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState("");
  const reload = () => {
    act
      .loadReports()
      .then(() => (setLoaded(true), setError("")))
      .catch((e) => setError(errorText(e)));
  };
  useEffect(reload, []);
  const reports = loaded ? sortedReports(state) : null;
  return (
    <div class="mod-pane">
      <div class="mod-toolbar">
        <p class="muted small" role="status">
          {reports === null ? "Loading reports…" : reports.length === 0 ? "No open reports." : `${reports.length} open ${reports.length === 1 ? "report" : "reports"}, newest first.`}
        </p>
        <button type="button" class="button" onClick={reload}>
          Refresh
        </button>
      </div>
      <ErrorRow error={error} />
      {reports && reports.length > 0 && (
        <ul class="report-list" aria-label="Open reports">
          {reports.map((r) => (
            <ReportItem key={r.id} state={state} base={store.base} act={act} api={api} report={r} onOpenMessage={props.onOpenMessage} />
          ))}
        </ul>
      )}
    </div>
  );
}

function ReportItem(props: { state: State; base: string; act: ReportsCommands; api: Api; report: Report; onOpenMessage: (m: Message) => void }) {
  const { state, api, report: r } = props;
  const m = r.message!;
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState<"" | "delete" | "ban">("");
  const [deleted, setDeleted] = useState(false);
  const [banned, setBanned] = useState(false);
  const author = r.author;
  const authorName = author ? author.displayName || author.username : nameOf(state, m.authorId);
  const channel = state.channels.get(m.channelId);
  const where = r.dm ? "in a direct message" : channel ? `in #${channel.name}` : "in a channel you are not in";
  // The author as the community knows them now (they may have left, or changed rank).
  const current = state.members.get(m.authorId);
  const act = async (what: string, fn: () => Promise<unknown>) => {
    setError("");
    setBusy(true);
    try {
      await fn();
      return true;
    } catch (e) {
      setError(`${what}: ${errorText(e)}`);
      return false;
    } finally {
      setBusy(false);
      setConfirm("");
    }
  };
  const resolve = () => act("Could not resolve the report", () => props.act.resolveReport(r));
  const remove = async () => {
    if (await act("Could not delete the message", () => api.chat.deleteMessage({ messageId: m.id }))) setDeleted(true);
  };
  const ban = async (reason: string) => {
    if (await act(`Could not ban ${authorName}`, () => api.server.banMember({ memberId: m.authorId, reason }))) setBanned(true);
  };
  const label = `Report about ${authorName}'s message ${where}`;
  return (
    <li class="report" aria-label={label}>
      <div class="report-message">
        <Avatar base={props.base} member={author ?? state.members.get(m.authorId)} size={32} />
        <div class="report-body">
          <p class="report-head">
            <span class="report-author">{authorName}</span>
            <span class="muted small">
              {" "}
              {where} · <time title={formatFull(m.createdAtMs)}>{formatFull(m.createdAtMs)}</time>
              {m.threadRootId && " · in a thread"}
            </span>
          </p>
          <div class="report-text">{m.text ? renderMarkdown(m.text, markdownContext(state)) : <span class="muted">(a file)</span>}</div>
        </div>
      </div>
      <div class="report-note">
        <p class="small">
          <span class="muted">Reported by </span>
          <strong>{r.reporter ? r.reporter.displayName || r.reporter.username : "someone (the reporter is not shown to the member reported)"}</strong>
          <span class="muted"> · {ago(r.reportedAtMs)}</span>
        </p>
        {r.note ? <p class="report-note-text">{r.note}</p> : <p class="muted small">No note.</p>}
      </div>
      <ErrorRow error={error} />
      {confirm === "delete" ? (
        <Confirm text="Delete this message for everyone?" action="Delete" busy={busy} onConfirm={remove} onCancel={() => setConfirm("")} />
      ) : confirm === "ban" ? (
        <ReasonConfirm text={`Ban ${authorName}? They leave now and cannot join again until unbanned.`} action="Ban" busy={busy} onConfirm={ban} onCancel={() => setConfirm("")} />
      ) : (
        <div class="report-actions">
          {!r.dm && channel && (
            <button type="button" class="button" onClick={() => props.onOpenMessage(m)}>
              Open in #{channel.name}
            </button>
          )}
          {deleted ? (
            <span class="muted small">Message deleted.</span>
          ) : (
            canDeleteMessageOf(state, m.authorId) &&
            !r.dm && (
              <button type="button" class="button button-danger" disabled={busy} onClick={() => setConfirm("delete")}>
                Delete message
              </button>
            )
          )}
          {banned ? (
            <span class="muted small">{authorName} is banned.</span>
          ) : (
            author &&
            canRemove(state, current ?? author) && (
              <button type="button" class="button button-danger" disabled={busy} onClick={() => setConfirm("ban")}>
                Ban {authorName}
              </button>
            )
          )}
          <button type="button" class="button button-primary" disabled={busy} onClick={resolve}>
            Resolve
          </button>
        </div>
      )}
    </li>
  );
}
