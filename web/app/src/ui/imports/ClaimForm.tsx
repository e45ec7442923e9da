// "Who is this imported person here?", on an imported member's card, for admins (EXTENSIONS.md
// 9): the admin picks the member the placeholder is ("This is me" for themselves), confirms, and
// ClaimMember gives the placeholder's messages and reactions to that member. The server answers
// when all are moved; meanwhile its events have taken the placeholder out of the lists and put
// the member in its place in the messages shown (state/claims.ts). Then a notice says where the
// history went and the card closes.

import { useId, useState } from "preact/hooks";
import { MemberKind, type Member } from "../../gen/svc/v1/types_pb";
import type { Commands } from "../../state/commands";
import { useStore, type State, type Store } from "../../state/store";
import { Avatar } from "../common";
import { Outcome, useAction } from "../admin/parts";
import { Confirm } from "../moderation/parts";
import "./imports.css";

/** How many members the list shows at once (the search finds the others). */
const SHOWN = 50;

export type ClaimFormProps = {
  store: Store;
  act: Pick<Commands, "claimMember" | "tell">;
  /** The imported member. */
  placeholder: Member;
  /** The claim is done (the card closes). */
  onDone: () => void;
  onCancel: () => void;
};

/** The members an imported person may be: people with an account here (no bots, no placeholders). */
function claimants(s: Pick<State, "members">): Member[] {
  return [...s.members.values()]
    .filter((m) => !m.imported && m.kind !== MemberKind.BOT)
    .sort((a, b) => (a.displayName || a.username).localeCompare(b.displayName || b.username));
}

export function ClaimForm(props: ClaimFormProps) {
  const { store, act, placeholder: ph } = props;
  const state = useStore(store, "members", "me");
  const [query, setQuery] = useState("");
  const [chosen, setChosen] = useState("");
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const id = useId();
  const me = state.me?.id ?? "";
  const name = ph.displayName || ph.username;
  const q = query.trim().toLowerCase().replace(/^@/, "");
  const all = claimants(state);
  const people = all.filter((m) => !q || m.username.includes(q) || m.displayName.toLowerCase().includes(q));
  const target = state.members.get(chosen);
  const targetName = target ? target.displayName || target.username : "";
  const choose = (id: string) => {
    setChosen(id);
    setConfirming(true);
    action.clear();
  };
  const claim = async () => {
    if (!target) return;
    const done = await action.run(async () => {
      await act.claimMember(ph.id, target.id);
      return true;
    });
    if (!done) return;
    act.tell(`The imported ${name}'s messages and reactions are ${target.id === me ? "yours" : targetName + "'s"} now.`, "info");
    props.onDone();
  };

  if (confirming && target) {
    const whom = target.id === me ? "you" : `${targetName} (@${target.username})`;
    return (
      <section class="claim" aria-label={`Claim ${name}`}>
        <Confirm
          text={`Give everything the imported ${name} wrote and reacted with to ${whom}? The imported ${name} leaves the member list. This cannot be undone.`}
          action={target.id === me ? "Yes, this is me" : `Yes, give to ${targetName}`}
          busy={action.busy}
          onConfirm={claim}
          onCancel={() => {
            setConfirming(false);
            action.clear();
          }}
        />
        {action.busy && (
          <p class="muted small" role="status">
            Moving {name}'s messages to {whom}…
          </p>
        )}
        <Outcome action={action} />
      </section>
    );
  }

  return (
    <section class="claim" aria-labelledby={id}>
      <h3 id={id} class="claim-title">
        Who is {name} here?
      </h3>
      <p class="muted small">Pick the member this imported person is: their messages and reactions become that member's.</p>
      {me && (
        <button type="button" class="button" onClick={() => choose(me)}>
          This is me
        </button>
      )}
      <label class="field">
        <span>Or find the member</span>
        <input class="input" type="search" value={query} placeholder="Name or @username" autoFocus onInput={(e) => setQuery(e.currentTarget.value)} />
      </label>
      <ul class="pick-list claim-list" aria-label="Members">
        {people.slice(0, SHOWN).map((m) => (
          <li key={m.id}>
            <label class="pick">
              <input type="radio" name="claim-member" checked={chosen === m.id} onChange={() => setChosen(m.id)} />
              <Avatar base={store.base} member={m} size={28} />
              <span class="claim-name">
                {m.displayName || m.username}
                {m.id === me && <span class="muted"> (you)</span>}
              </span>
              <span class="muted">@{m.username}</span>
            </label>
          </li>
        ))}
      </ul>
      {people.length === 0 && <p class="muted small">{all.length === 0 ? "Nobody with an account here yet." : `Nobody matches “${query}”.`}</p>}
      {people.length > SHOWN && <p class="muted small">{people.length - SHOWN} more: search to find them.</p>}
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class="button button-primary" disabled={!target} onClick={() => choose(chosen)}>
          Continue
        </button>
      </div>
    </section>
  );
}
