// What a member's card adds about moderation: what the person's own mute and block of this
// member do (to DMs and to unread and mention counts), until when the member is timed out, and,
// for a moderator who outranks them, timing them out (or ending it), kicking and banning them,
// each with a reason for the audit log. Bots are timed out but not kicked or banned (an admin
// deletes them), and nobody acts on an equal or higher rank: those buttons are not offered.

import { useState } from "preact/hooks";
import type { Member } from "../../gen/svc/v1/types_pb";
import { errorText, type Api } from "../../lib/api";
import { canRemove, canTimeOut } from "../../lib/ranks";
import type { Commands } from "../../state/commands";
import { timedOutUntil } from "../../state/selectors";
import { useStore, type Store } from "../../state/store";
import { ErrorRow } from "../common";
import { ReasonConfirm } from "./parts";
import { TimeoutLengths, TimeoutStatus } from "./Timeout";
import { lengthText } from "./time";
import "./moderation.css";

export function MemberModeration(props: { store: Store; act: Pick<Commands, "timeoutMember">; api: Api; member: Member; onDone: () => void }) {
  const { api, act, member: m } = props;
  const state = useStore(props.store, "members", "me");
  const [confirm, setConfirm] = useState<"" | "kick" | "ban" | "timeout">("");
  const [length, setLength] = useState(600);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  if (m.id === state.me?.id) return null;
  const name = m.displayName || m.username;
  const muted = state.muted.has(m.id);
  const blocked = state.blocked.has(m.id);
  const timedOut = timedOutUntil(m) > 0;
  const removable = canRemove(state, m);
  const run = async (fn: () => Promise<unknown>, done: boolean) => {
    setBusy(true);
    setError("");
    try {
      await fn();
      if (done) props.onDone();
      else setConfirm("");
    } catch (e) {
      setError(errorText(e));
      setConfirm("");
    } finally {
      setBusy(false);
    }
  };
  const remove = (how: "kick" | "ban", reason: string) =>
    run(() => (how === "kick" ? api.server.kickMember({ memberId: m.id, reason }) : api.server.banMember({ memberId: m.id, reason })), true);
  const timeout = (seconds: number, reason: string) => run(() => act.timeoutMember(m.id, seconds, reason), false);
  return (
    <div class="member-moderation">
      {(muted || blocked) && (
        <ul class="effects" aria-label="What your choices do">
          {blocked && (
            <li>
              <strong>Blocked.</strong> Neither of you can open a direct message with the other or send in one you share, and
              {" " + name}'s messages do not count in your unread and mention counts. They are not told.
            </li>
          )}
          {muted && !blocked && (
            <li>
              <strong>Muted.</strong> {name}'s messages do not count in your unread and mention counts; direct messages still
              reach you. They are not told.
            </li>
          )}
        </ul>
      )}
      <TimeoutStatus member={m} />
      {canTimeOut(state, m) && (
        <div class="mod-actions">
          <h3 class="mod-actions-title">Moderation</h3>
          {confirm === "timeout" ? (
            <ReasonConfirm
              text={`Time ${name} out? Until then they can read, but not send, react, report or start conversations.`}
              action={`Time out for ${lengthText(length)}`}
              busy={busy}
              onConfirm={(reason) => timeout(length, reason)}
              onCancel={() => setConfirm("")}
            >
              <TimeoutLengths value={length} onChange={setLength} />
            </ReasonConfirm>
          ) : confirm === "kick" ? (
            <ReasonConfirm text={`Kick ${name}? They leave the community now and can join again.`} action="Kick" busy={busy} onConfirm={(r) => remove("kick", r)} onCancel={() => setConfirm("")} />
          ) : confirm === "ban" ? (
            <ReasonConfirm text={`Ban ${name}? They leave now and cannot join again until unbanned.`} action="Ban" busy={busy} onConfirm={(r) => remove("ban", r)} onCancel={() => setConfirm("")} />
          ) : (
            <div class="dialog-actions mod-buttons">
              <button type="button" class="button" onClick={() => setConfirm("timeout")}>
                {timedOut ? "Change timeout" : "Time out"}
              </button>
              {timedOut && (
                <button type="button" class="button" disabled={busy} onClick={() => timeout(0, "")}>
                  End timeout
                </button>
              )}
              {removable && (
                <button type="button" class="button button-danger" onClick={() => setConfirm("kick")}>
                  Kick
                </button>
              )}
              {removable && (
                <button type="button" class="button button-danger" onClick={() => setConfirm("ban")}>
                  Ban
                </button>
              )}
            </div>
          )}
          <ErrorRow error={error} />
        </div>
      )}
    </div>
  );
}
