// The members screen (everyone): the community's members with a search, each opening their
// card (the members an import brought marked, and for admins, a way to list them alone to claim
// each on their card); and, on a member's card, the controls of ranks and roles for those who may use them
// (admins set lower ranks than their own on members below them, and the custom roles of those
// members and their own; the owner anyone's).

import { useState } from "preact/hooks";
import { MemberKind, MemberRole, type Member } from "../../gen/svc/v1/types_pb";
import type { Commands } from "../../state/commands";
import { useStore, type State, type Store } from "../../state/store";
import { isAdmin } from "../../lib/ranks";
import { Avatar, ImportedTag, PresenceDot } from "../common";
import { RoleChip } from "./ChannelSettings";
import { Outcome, useAction } from "./parts";
import { knownRoles, maySetRoles, rankName, rankRefusal, ranksToGive } from "./ranks";
import "../imports/imports.css";

export function MembersScreen(props: { store: Store; onMember: (id: string) => void }) {
  const { store } = props;
  const state = useStore(store, "status", "members");
  const [query, setQuery] = useState("");
  const [onlyImported, setOnlyImported] = useState(false);
  const q = query.trim().toLowerCase().replace(/^@/, "");
  const all = [...state.members.values()];
  const imported = all.filter((m) => m.imported).length;
  const shown = all
    .filter((m) => !onlyImported || m.imported)
    .filter((m) => !q || m.username.includes(q) || m.displayName.toLowerCase().includes(q) || knownRoles(state, m.roleIds).some((r) => r.name.toLowerCase().includes(q)))
    .sort((a, b) => b.role - a.role || (a.displayName || a.username).localeCompare(b.displayName || b.username));
  return (
    <div class="admin-page">
      <section class="admin-section" aria-labelledby="members-title">
        <h2 id="members-title">
          Members <span class="muted">({all.length})</span>
        </h2>
        <label class="field">
          <span>Search members</span>
          <input class="input" type="search" value={query} placeholder="Name, @username or role" onInput={(e) => setQuery(e.currentTarget.value)} />
        </label>
        {imported > 0 && isAdmin(state) && (
          <div class="imported-note">
            <p class="muted small">
              {imported === 1 ? "1 member came" : `${imported} members came`} with an imported history and {imported === 1 ? "has" : "have"} no account here. Open one
              and choose Claim… to give their messages to the member they are.
            </p>
            <label class="check">
              <input type="checkbox" checked={onlyImported} onChange={() => setOnlyImported(!onlyImported)} />
              Only imported members
            </label>
          </div>
        )}
        <ul class="member-list" aria-label="Members">
          {shown.map((m) => (
            <li key={m.id}>
              <button type="button" class="member-row" onClick={() => props.onMember(m.id)}>
                <Avatar base={store.base} member={m} size={36} />
                <span class="member-row-names">
                  <span class="member-row-name">
                    {m.displayName || m.username}
                    {m.id === state.me?.id && <span class="muted"> (you)</span>}
                  </span>
                  <span class="muted small">@{m.username}</span>
                </span>
                <span class="chips">
                  {m.kind === MemberKind.BOT && <span class="tag">Bot</span>}
                  {m.imported && <ImportedTag />}
                  {m.role > MemberRole.MEMBER && <span class="tag tag-rank">{rankName(m.role)}</span>}
                  {knownRoles(state, m.roleIds).map((r) => (
                    <RoleChip key={r.id} name={r.name} color={r.color} />
                  ))}
                </span>
                <PresenceDot presence={m.presence} unknown={state.lost} />
              </button>
            </li>
          ))}
        </ul>
        {shown.length === 0 && <p class="muted">Nobody matches “{query}”.</p>}
      </section>
    </div>
  );
}

export type MembersCommands = Pick<Commands, "setMemberRole" | "setMemberRoles">;

/** The rank and roles part of a member's card. */
export function MemberAdmin(props: { store: Store; act: MembersCommands; member: Member }) {
  const { act, member: m } = props;
  const state = useStore(props.store, "members", "me");
  const ranks = ranksToGive(state, m);
  const refusal = rankRefusal(state, m);
  const setRoles = maySetRoles(state, m);
  const roles = knownRoles(state, m.roleIds);
  if (ranks.length === 0 && !refusal && !setRoles && roles.length === 0) return null;
  return (
    <div class="member-admin">
      {ranks.length > 0 && <RankControl act={act} member={m} ranks={ranks} />}
      {ranks.length === 0 && refusal && <p class="muted small">{refusal}</p>}
      {setRoles ? (
        <RoleControl state={state} act={act} member={m} />
      ) : (
        roles.length > 0 && (
          <div class="chips" aria-label="Roles">
            {roles.map((r) => (
              <RoleChip key={r.id} name={r.name} color={r.color} />
            ))}
          </div>
        )
      )}
    </div>
  );
}

function RankControl(props: { act: MembersCommands; member: Member; ranks: MemberRole[] }) {
  const { act, member: m } = props;
  const action = useAction();
  const name = m.displayName || m.username;
  const change = async (role: MemberRole) => {
    if (role === m.role) return;
    await action.run(() => act.setMemberRole(m.id, role), `${name} is now ${article(rankName(role))}.`, "The rank was not changed");
  };
  return (
    <div class="rank-control">
      <label class="field field-inline">
        <span>Rank</span>
        <select class="input" value={String(m.role)} disabled={action.busy} onChange={(e) => change(Number(e.currentTarget.value) as MemberRole)}>
          {props.ranks.map((r) => (
            <option key={r} value={String(r)}>
              {rankName(r)}
            </option>
          ))}
        </select>
      </label>
      <p class="muted small">Moderators remove messages, kick, ban and make invites; admins also run the community's settings, channels and roles. You give only ranks below yours, to members below you.</p>
      <Outcome action={action} />
    </div>
  );
}

function RoleControl(props: { state: State; act: MembersCommands; member: Member }) {
  const { state, act, member: m } = props;
  const action = useAction();
  if (state.roles.length === 0) return <p class="muted small">There are no custom roles yet: admins create them on the Roles page.</p>;
  const toggle = async (id: string) => {
    const ids = m.roleIds.filter((x) => state.roles.some((r) => r.id === x));
    const next = ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id];
    await action.run(() => act.setMemberRoles(m.id, next), "Saved.", "The roles were not changed");
  };
  return (
    <fieldset class="choice-set role-control">
      <legend>Roles</legend>
      <ul class="role-checks">
        {state.roles.map((r) => (
          <li key={r.id}>
            <label class="check">
              <input type="checkbox" checked={m.roleIds.includes(r.id)} disabled={action.busy} onChange={() => toggle(r.id)} />
              <RoleChip name={r.name} color={r.color} />
            </label>
          </li>
        ))}
      </ul>
      <Outcome action={action} />
    </fieldset>
  );
}

function article(word: string): string {
  return (/^[aeiou]/i.test(word) ? "an " : "a ") + word.toLowerCase();
}
