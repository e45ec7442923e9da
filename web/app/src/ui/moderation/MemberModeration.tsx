// What a member's card adds about moderation: what the person's own mute and block of this
// member do (to DMs and to unread and mention counts), and, for a moderator who outranks a
// person, kicking and banning them. Bots are not kicked or banned (an admin deletes them), and
// nobody acts on an equal or higher rank: those buttons are not offered.

import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { Member } from "../../gen/svc/v1/types_pb";
import { errorText, type Api } from "../../lib/api";
import { canRemove } from "../../lib/ranks";
import type { Commands } from "../../state/commands";
import { nameOf } from "../../state/selectors";
import { useStore, type State, type Store } from "../../state/store";
import { ErrorRow } from "../common";
import { Confirm } from "./parts";
import "./moderation.css";

export function MemberModeration(props: { store: Store; api: Api; member: Member; onDone: () => void }) {
  const { api, member: m } = props;
  const state = useStore(props.store, "members", "me");
  const [confirm, setConfirm] = useState<"" | "kick" | "ban">("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  if (m.id === state.me?.id) return null;
  const name = m.displayName || m.username;
  const muted = state.muted.has(m.id);
  const blocked = state.blocked.has(m.id);
  const remove = async (how: "kick" | "ban") => {
    setBusy(true);
    setError("");
    try {
      if (how === "kick") await api.server.kickMember({ memberId: m.id });
      else await api.server.banMember({ memberId: m.id });
      props.onDone();
    } catch (e) {
      setError(errorText(e));
      setConfirm("");
    } finally {
      setBusy(false);
    }
  };
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
      {canRemove(state, m) && (
        <div class="mod-actions">
          <h3 class="mod-actions-title">Moderation</h3>
          {confirm === "kick" ? (
            <Confirm text={`Kick ${name}? They leave the community now and can join again.`} action="Kick" busy={busy} onConfirm={() => remove("kick")} onCancel={() => setConfirm("")} />
          ) : confirm === "ban" ? (
            <Confirm text={`Ban ${name}? They leave now and cannot join again until unbanned.`} action="Ban" busy={busy} onConfirm={() => remove("ban")} onCancel={() => setConfirm("")} />
          ) : (
            <div class="dialog-actions mod-buttons">
              <button type="button" class="button button-danger" onClick={() => setConfirm("kick")}>
                Kick
              </button>
              <button type="button" class="button button-danger" onClick={() => setConfirm("ban")}>
                Ban
              </button>
            </div>
          )}
          <ErrorRow error={error} />
        </div>
      )}
    </div>
  );
}

/**
 * Where the person writes in a DM: the composer (children), or, in a DM with someone they
 * blocked, in its place a notice that nothing can be sent there (the server refuses it) with
 * Unblock. The draft stays and comes back with the composer.
 */
export function DMBlockGate(props: {
  state: Pick<State, "me" | "members" | "blocked">;
  act: Pick<Commands, "toggleBlock">;
  memberIds: string[];
  children: ComponentChildren;
}) {
  const { state } = props;
  const others = props.memberIds.filter((id) => id !== state.me?.id && state.blocked.has(id));
  if (others.length === 0) return <>{props.children}</>;
  const names = others.map((id) => nameOf(state, id)).join(", ");
  return (
    <div class="dm-block-notice" role="note">
      <span>
        You blocked {names}: messages cannot be sent in this conversation until you unblock {others.length === 1 ? "them" : "all of them"}.
      </span>
      {others.length === 1 && (
        <button type="button" class="button" onClick={() => props.act.toggleBlock(others[0])}>
          Unblock
        </button>
      )}
    </div>
  );
}
