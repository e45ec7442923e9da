// Dialogs about people: a member's card (open a DM, mute, block) and a new DM or group DM.

import { useState } from "preact/hooks";
import { MemberKind, MemberRole } from "../gen/svc/v1/types_pb";
import { useTopics } from "../lib/emitter";
import { renderMarkdown } from "../lib/markdown";
import { RANK_NAMES } from "../lib/ranks";
import { MemberAdmin } from "./admin/Members";
import type { Session } from "../state/session";
import { Avatar, Dialog, PresenceDot, formatDay, presenceLabel } from "./common";
import { renderContext } from "./MessageItem";
import { MemberModeration } from "./moderation/MemberModeration";
import { nameOf } from "../state/selectors";

export function MemberCard(props: { session: Session; memberId: string; onClose: () => void; onOpenChannel: (id: string) => void }) {
  const { session, memberId } = props;
  useTopics(session.em, "members");
  const m = session.state.members.get(memberId);
  const me = memberId === session.state.me?.id;
  const name = nameOf(session.state, memberId);
  const message = async () => {
    const id = await session.act.openDM([memberId]);
    if (id) {
      props.onClose();
      props.onOpenChannel(id);
    }
  };
  return (
    <Dialog title={name} onClose={props.onClose}>
      {!m ? (
        <p class="muted">This member has left the community.</p>
      ) : (
        <div class="member-card">
          <div class="member-card-head">
            <Avatar session={session} member={m} size={72} />
            <div>
              <p class="member-card-name">
                {m.displayName || m.username} {m.kind === MemberKind.BOT && <span class="tag">bot</span>}
                {m.role > MemberRole.MEMBER && <span class="tag">{RANK_NAMES[m.role]}</span>}
              </p>
              <p class="muted">@{m.username}</p>
              <p class="member-presence">
                <PresenceDot presence={m.presence} /> {presenceLabel(m.presence)}
              </p>
            </div>
          </div>
          {(m.statusEmoji || m.statusText) && (
            <p class="member-status">
              {m.statusEmoji} {m.statusText}
            </p>
          )}
          {m.bio && <div class="member-bio">{renderMarkdown(m.bio, renderContext(session, () => undefined))}</div>}
          <p class="muted small">Member since {formatDay(m.joinedAtMs)}</p>
          <MemberAdmin session={session} member={m} />
          {!me && (
            <div class="dialog-actions">
              <button type="button" class="button button-primary" onClick={message} disabled={session.state.blocked.has(memberId)}>
                Message
              </button>
              <button type="button" class="button" aria-pressed={session.state.muted.has(memberId)} onClick={() => session.act.toggleMute(memberId)}>
                {session.state.muted.has(memberId) ? "Unmute" : "Mute"}
              </button>
              <button type="button" class="button" aria-pressed={session.state.blocked.has(memberId)} onClick={() => session.act.toggleBlock(memberId)}>
                {session.state.blocked.has(memberId) ? "Unblock" : "Block"}
              </button>
            </div>
          )}
          <MemberModeration session={session} member={m} onDone={props.onClose} />
        </div>
      )}
    </Dialog>
  );
}

export function NewDM(props: { session: Session; onClose: () => void; onOpenChannel: (id: string) => void }) {
  const { session } = props;
  useTopics(session.em, "members");
  const [query, setQuery] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const q = query.toLowerCase();
  const people = [...session.state.members.values()]
    .filter((m) => m.id !== session.state.me?.id && (!q || m.username.includes(q) || m.displayName.toLowerCase().includes(q)))
    .sort((a, b) => (a.displayName || a.username).localeCompare(b.displayName || b.username))
    .slice(0, 50);
  const toggle = (id: string) =>
    setChosen((c) => (c.includes(id) ? c.filter((x) => x !== id) : c.length >= 8 ? c : [...c, id]));
  const open = async () => {
    const id = await session.act.openDM(chosen);
    if (id) {
      props.onClose();
      props.onOpenChannel(id);
    }
  };
  return (
    <Dialog title="New direct message" onClose={props.onClose}>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (chosen.length > 0) void open();
        }}
      >
        <label class="field">
          <span>Find people (up to 8)</span>
          <input class="input" type="search" value={query} autoFocus onInput={(e) => setQuery((e.target as HTMLInputElement).value)} />
        </label>
        <ul class="pick-list" aria-label="People">
          {people.map((m) => (
            <li key={m.id}>
              <label class="pick">
                <input type="checkbox" checked={chosen.includes(m.id)} onChange={() => toggle(m.id)} />
                <Avatar session={session} member={m} size={28} />
                <span>{m.displayName || m.username}</span>
                <span class="muted">@{m.username}</span>
              </label>
            </li>
          ))}
        </ul>
        <div class="dialog-actions">
          <button type="submit" class="button button-primary" disabled={chosen.length === 0}>
            {chosen.length > 1 ? `Start a group of ${chosen.length + 1}` : "Open conversation"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
