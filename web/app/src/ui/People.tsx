// Dialogs about people: a member's card (open a DM, mute, block; an imported member's claim, for
// admins) and a new DM or group DM.

import { useRef, useState } from "preact/hooks";
import { MemberKind, MemberRole } from "../gen/svc/v1/types_pb";
import { renderMarkdown } from "../lib/markdown";
import { isAdmin, RANK_NAMES } from "../lib/ranks";
import { MemberAdmin, type MembersCommands } from "./admin/Members";
import type { Api } from "../lib/api";
import type { Commands } from "../state/commands";
import { useStore, type Store } from "../state/store";
import { Avatar, Dialog, ImportedTag, PresenceDot, formatDay, presenceLabel } from "./common";
import { lazyView } from "./lazy";
import { MemberModeration } from "./moderation/MemberModeration";
import { ResetPasswordItem } from "./account/ResetLink";
import { markdownContext, nameOf } from "../state/selectors";

export type MemberCardCommands = MembersCommands & Pick<Commands, "openDM" | "toggleMute" | "toggleBlock" | "timeoutMember" | "claimMember" | "tell">;

const ClaimForm = lazyView("the claim form", () => import("./imports/ClaimForm"), (m) => m.ClaimForm);

export function MemberCard(props: { store: Store; act: MemberCardCommands; api: Api; memberId: string; onClose: () => void; onOpenChannel: (id: string) => void }) {
  const { store, act, memberId } = props;
  const state = useStore(store, "members", "status");
  const [claiming, setClaiming] = useState(false);
  // An imported member being claimed here leaves the members at the claim's first event: the
  // card stays on them until the claim answers.
  const live = state.members.get(memberId);
  const known = useRef(live);
  if (live) known.current = live;
  const m = live ?? (claiming ? known.current : undefined);
  const claimedBy = state.claims.get(memberId);
  const me = memberId === state.me?.id;
  const name = known.current ? known.current.displayName || known.current.username : nameOf(state, memberId);
  const message = async () => {
    const id = await act.openDM([memberId]);
    if (id) {
      props.onClose();
      props.onOpenChannel(id);
    }
  };
  return (
    <Dialog title={name} onClose={props.onClose}>
      {!m ? (
        <p class="muted">{claimedBy ? `The imported ${name} was claimed: their messages and reactions are ${nameOf(state, claimedBy)}'s now.` : "This member has left the community."}</p>
      ) : (
        <div class="member-card">
          <div class="member-card-head">
            <Avatar base={store.base} member={m} size={72} />
            <div>
              <p class="member-card-name">
                {m.displayName || m.username} {m.kind === MemberKind.BOT && <span class="tag">bot</span>}
                {m.role > MemberRole.MEMBER && <span class="tag">{RANK_NAMES[m.role]}</span>}
                {m.imported && <ImportedTag />}
              </p>
              <p class="muted">@{m.username}</p>
              <p class="member-presence">
                <PresenceDot presence={m.presence} unknown={state.lost} /> {presenceLabel(m.presence, state.lost)}
              </p>
            </div>
          </div>
          {(m.statusEmoji || m.statusText) && (
            <p class="member-status">
              {m.statusEmoji} {m.statusText}
            </p>
          )}
          {m.bio && <div class="member-bio">{renderMarkdown(m.bio, markdownContext(state))}</div>}
          {m.imported ? (
            <p class="muted small">
              Came with the history imported on {formatDay(m.joinedAtMs)}. {name} has no account here: an admin can give their messages and reactions to
              the member they are.
            </p>
          ) : (
            <p class="muted small">Member since {formatDay(m.joinedAtMs)}</p>
          )}
          {m.imported &&
            isAdmin(state) &&
            (claiming ? (
              <ClaimForm store={store} act={act} placeholder={m} onDone={props.onClose} onCancel={() => setClaiming(false)} />
            ) : (
              <div class="dialog-actions">
                <button type="button" class="button button-primary" onClick={() => setClaiming(true)}>
                  Claim…
                </button>
              </div>
            ))}
          {!m.imported && <MemberAdmin store={store} act={act} member={m} />}
          {!me && !m.imported && (
            <div class="dialog-actions">
              <button type="button" class="button button-primary" onClick={message} disabled={state.blocked.has(memberId)}>
                Message
              </button>
              <button type="button" class="button" aria-pressed={state.muted.has(memberId)} onClick={() => act.toggleMute(memberId)}>
                {state.muted.has(memberId) ? "Unmute" : "Mute"}
              </button>
              <button type="button" class="button" aria-pressed={state.blocked.has(memberId)} onClick={() => act.toggleBlock(memberId)}>
                {state.blocked.has(memberId) ? "Unblock" : "Block"}
              </button>
            </div>
          )}
          <MemberModeration store={store} act={act} api={props.api} member={m} onDone={props.onClose} />
          {!m.imported && <ResetPasswordItem store={store} api={props.api} member={m} />}
        </div>
      )}
    </Dialog>
  );
}

export function NewDM(props: { store: Store; act: Pick<Commands, "openDM">; onClose: () => void; onOpenChannel: (id: string) => void }) {
  const { store, act } = props;
  const state = useStore(store, "members");
  const [query, setQuery] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const q = query.toLowerCase();
  const people = [...state.members.values()]
    .filter((m) => m.id !== state.me?.id && (!q || m.username.includes(q) || m.displayName.toLowerCase().includes(q)))
    .sort((a, b) => (a.displayName || a.username).localeCompare(b.displayName || b.username))
    .slice(0, 50);
  const toggle = (id: string) =>
    setChosen((c) => (c.includes(id) ? c.filter((x) => x !== id) : c.length >= 8 ? c : [...c, id]));
  const open = async () => {
    const id = await act.openDM(chosen);
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
                <Avatar base={store.base} member={m} size={28} />
                <span>{m.displayName || m.username}</span>
                <span class="muted">@{m.username}</span>
                {m.imported && <ImportedTag />}
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
