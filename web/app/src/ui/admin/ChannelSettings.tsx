// A channel's settings, as a dialog opened from the channels screen or the channel's header
// (ChannelHead.tsx, which loads it on first use).
// Each part shows only to those who may use it: name, topic, category, header image and access
// (roles, default channel) to admins and the owner; a private channel's members to its members
// (anyone in it adds people; moderators and up remove those below them); leaving to whoever may
// leave (a private channel, or a TEXT channel in OPT_IN mode).

import { useId, useState } from "preact/hooks";
import { ChannelKind, ChannelMode, MemberRole, type Channel } from "../../gen/svc/v1/types_pb";
import { LIMITS } from "../../lib/chars";
import { navigate } from "../../lib/router";
import type { Api } from "../../lib/api";
import type { Commands } from "../../state/commands";
import { useStore, type State, type Store } from "../../state/store";
import { Avatar, Dialog } from "../common";
import { limited } from "../limits";
import { communityHash, ImageField, Outcome, useAction } from "./parts";
import { isAdmin } from "../../lib/ranks";
import { mayRemoveFromChannel, rankName } from "./ranks";
import { SlowmodeField } from "./Slowmode";
import { nameOf } from "../../state/selectors";

/** The commands a channel's settings call. */
export type ChannelSettingsCommands = Pick<Commands, "updateChannel" | "setChannelAccess" | "addChannelMembers" | "removeChannelMember" | "leaveChannel">;

/** What the parts of the settings get. */
type PartProps = { state: State; act: ChannelSettingsCommands; channel: Channel };

export function ChannelSettingsDialog(props: { store: Store; act: ChannelSettingsCommands; api: Api; channelId: string; onClose: () => void }) {
  const { store, act } = props;
  const state = useStore(store, "channels", "members", "me");
  const channel = state.channels.get(props.channelId);
  if (!channel) {
    return (
      <Dialog title="Channel settings" onClose={props.onClose}>
        <p class="muted">You no longer see this channel.</p>
      </Dialog>
    );
  }
  const admin = isAdmin(state);
  return (
    <Dialog title={`#${channel.name}`} onClose={props.onClose} wide>
      <div class="channel-settings">
        {admin && <Details state={state} act={act} channel={channel} />}
        {admin && (
          <ImageField
            base={store.base}
            api={props.api}
            label="Header image"
            shape="banner"
            url={channel.headerImage?.url ?? ""}
            onUploaded={(a) => act.updateChannel({ channelId: channel.id, headerImageId: a.id })}
            onRemove={() => act.updateChannel({ channelId: channel.id, headerImageId: "" })}
          />
        )}
        {admin && (channel.kind === ChannelKind.TEXT || channel.kind === ChannelKind.PRIVATE) && <SlowmodeField act={act} channel={channel} />}
        {admin && channel.kind === ChannelKind.TEXT && <Access state={state} act={act} channel={channel} />}
        {channel.kind === ChannelKind.PRIVATE && <PrivateMembers state={state} act={act} base={store.base} channel={channel} />}
        <Leave state={state} act={act} channel={channel} onLeft={props.onClose} />
      </div>
    </Dialog>
  );
}

function Details(props: PartProps) {
  const { act, channel } = props;
  const [name, setName] = useState(channel.name);
  const [topic, setTopic] = useState(channel.topic);
  const [category, setCategory] = useState(channel.category);
  const action = useAction();
  const changed = name !== channel.name || topic !== channel.topic || category.trim() !== channel.category;
  const id = useId();
  const nameCheck = limited(id + "-name", name, LIMITS.channelName);
  const categoryCheck = limited(id + "-category", category.trim(), LIMITS.channelCategory);
  const topicCheck = limited(id + "-topic", topic, LIMITS.channelTopic);
  const over = nameCheck.over || categoryCheck.over || topicCheck.over;
  const save = async (e: Event) => {
    e.preventDefault();
    if (over) return;
    const saved = await action.run(
      () =>
        act.updateChannel({
          channelId: channel.id,
          name: name !== channel.name ? name : undefined,
          topic: topic !== channel.topic ? topic : undefined,
          category: category.trim() !== channel.category ? category.trim() : undefined,
        }),
      "Saved.",
    );
    // The server normalizes the name: show it as stored.
    if (saved) setName(saved.name);
  };
  return (
    <form class="form" onSubmit={save} aria-label="Name, topic and category">
      <div class="field-row">
        <label class="field">
          <span>Name</span>
          <input class="input" value={name} required {...nameCheck.field} onInput={(e) => setName(e.currentTarget.value)} />
          {nameCheck.note}
        </label>
        <label class="field">
          <span>Category</span>
          <input class="input" value={category} placeholder="None" {...categoryCheck.field} onInput={(e) => setCategory(e.currentTarget.value)} />
          {categoryCheck.note}
        </label>
      </div>
      <label class="field">
        <span>Topic</span>
        <input class="input" value={topic} {...topicCheck.field} onInput={(e) => setTopic(e.currentTarget.value)} />
        {topicCheck.note}
      </label>
      <Outcome action={action} />
      <div class="dialog-actions">
        <button type="submit" class="button button-primary" disabled={action.busy || !changed || !name.trim() || over}>
          Save
        </button>
      </div>
    </form>
  );
}

function Access(props: PartProps) {
  const { state, act, channel } = props;
  const [limited, setLimited] = useState(channel.roleIds.length > 0);
  const [roleIds, setRoleIds] = useState<string[]>(channel.roleIds);
  const [isDefault, setDefault] = useState(channel.isDefault);
  const action = useAction();
  const chosen = limited ? roleIds.filter((id) => state.roles.some((r) => r.id === id)) : [];
  const same = chosen.length === channel.roleIds.length && chosen.every((id) => channel.roleIds.includes(id)) && isDefault === channel.isDefault;
  const save = async (e: Event) => {
    e.preventDefault();
    await action.run(() => act.setChannelAccess({ channelId: channel.id, roleIds: chosen, isDefault }), "Saved.");
  };
  const toggle = (id: string) => setRoleIds((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id]));
  return (
    <form class="form" onSubmit={save} aria-labelledby="access-title">
      <h3 id="access-title" class="form-title">
        Who sees it
      </h3>
      <fieldset class="choice-set">
        <legend class="visually-hidden">Who sees it</legend>
        <label class="check">
          <input type="radio" name="access" checked={!limited} onChange={() => setLimited(false)} />
          Every member
        </label>
        <label class="check">
          <input type="radio" name="access" checked={limited} onChange={() => setLimited(true)} disabled={state.roles.length === 0} />
          Only members with one of these roles (and admins)
        </label>
      </fieldset>
      {state.roles.length === 0 ? (
        <p class="muted small">
          There are no roles yet.{" "}
          <a href={communityHash("roles")} onClick={() => navigate(communityHash("roles"))}>
            Create one on the Roles page
          </a>{" "}
          to limit who sees a channel.
        </p>
      ) : (
        limited && (
          <ul class="role-checks" aria-label="Roles that see the channel">
            {state.roles.map((r) => (
              <li key={r.id}>
                <label class="check">
                  <input type="checkbox" checked={roleIds.includes(r.id)} onChange={() => toggle(r.id)} />
                  <RoleChip name={r.name} color={r.color} />
                </label>
              </li>
            ))}
          </ul>
        )
      )}
      <label class="check">
        <input type="checkbox" checked={isDefault} onChange={(e) => setDefault(e.currentTarget.checked)} />
        <span>
          Default channel <span class="muted small">new members are put in it when people choose their channels</span>
        </span>
      </label>
      <Outcome action={action} />
      <div class="dialog-actions">
        <button type="submit" class="button button-primary" disabled={action.busy || same || (limited && chosen.length === 0)}>
          Save access
        </button>
      </div>
    </form>
  );
}

export function RoleChip(props: { name: string; color: string }) {
  return (
    <span class="role-chip">
      <span class="role-dot" aria-hidden="true" style={props.color ? { background: props.color } : undefined} />
      {props.name}
    </span>
  );
}

function PrivateMembers(props: PartProps & { base: string }) {
  const { state, act, channel } = props;
  const [query, setQuery] = useState("");
  const action = useAction();
  const inIt = channel.memberIds.includes(state.me?.id ?? "");
  const q = query.trim().toLowerCase().replace(/^@/, "");
  const candidates = q
    ? [...state.members.values()]
        .filter((m) => !channel.memberIds.includes(m.id) && (m.username.includes(q) || m.displayName.toLowerCase().includes(q)))
        .slice(0, 8)
    : [];
  const add = async (id: string) => {
    const saved = await action.run(() => act.addChannelMembers({ channelId: channel.id, memberIds: [id] }), `Added ${nameOf(state, id)}.`);
    if (saved) setQuery("");
  };
  const remove = async (id: string) => {
    const name = nameOf(state, id);
    await action.run(() => act.removeChannelMember(channel.id, id), `Removed ${name}.`);
  };
  return (
    <section class="form" aria-labelledby="private-members-title">
      <h3 id="private-members-title" class="form-title">
        People in this private channel ({channel.memberIds.length})
      </h3>
      <ul class="people-list">
        {channel.memberIds.map((id) => {
          const m = state.members.get(id);
          return (
            <li key={id} class="people-row">
              <Avatar base={props.base} member={m} size={28} />
              <span class="people-name">
                {nameOf(state, id)} {m && <span class="muted small">@{m.username}</span>}
                {m && m.role > MemberRole.MEMBER && <span class="tag">{rankName(m.role)}</span>}
              </span>
              {mayRemoveFromChannel(state, channel, m) && (
                <button type="button" class="button" aria-label={`Remove ${nameOf(state, id)} from #${channel.name}`} disabled={action.busy} onClick={() => remove(id)}>
                  Remove
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {inIt && (
        <>
          <label class="field">
            <span>Add people</span>
            <input class="input" type="search" value={query} placeholder="Name or @username" onInput={(e) => setQuery(e.currentTarget.value)} />
          </label>
          {q && candidates.length === 0 && <p class="muted small">Nobody else matches.</p>}
          {candidates.length > 0 && (
            <ul class="people-list" aria-label="People to add">
              {candidates.map((m) => (
                <li key={m.id} class="people-row">
                  <Avatar base={props.base} member={m} size={28} />
                  <span class="people-name">
                    {m.displayName || m.username} <span class="muted small">@{m.username}</span>
                  </span>
                  <button type="button" class="button" aria-label={`Add ${m.displayName || m.username} to #${channel.name}`} disabled={action.busy} onClick={() => add(m.id)}>
                    Add
                  </button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <Outcome action={action} />
    </section>
  );
}

function Leave(props: PartProps & { onLeft: () => void }) {
  const { state, act, channel } = props;
  const [confirm, setConfirm] = useState(false);
  const action = useAction();
  const me = state.me?.id ?? "";
  const canLeave =
    channel.kind === ChannelKind.PRIVATE ? channel.memberIds.includes(me) : channel.kind === ChannelKind.TEXT && state.mode === ChannelMode.OPT_IN;
  if (!canLeave) return null;
  const leave = async () => {
    const ok = await action.run(() => act.leaveChannel(channel.id).then(() => true));
    if (ok) props.onLeft();
  };
  return (
    <section class="form leave-section" aria-label="Leave the channel">
      {confirm ? (
        <div class="confirm-box" role="group" aria-label="Confirm leaving">
          <p>
            {channel.kind === ChannelKind.PRIVATE
              ? `Leave #${channel.name}? You will no longer see it; someone in it has to add you again.`
              : `Leave #${channel.name}? You can join it again from Browse channels.`}
          </p>
          <div class="dialog-actions">
            <button type="button" class="button" onClick={() => setConfirm(false)}>
              Stay
            </button>
            <button type="button" class="button button-danger" disabled={action.busy} onClick={leave}>
              Leave
            </button>
          </div>
        </div>
      ) : (
        <div class="dialog-actions dialog-actions-start">
          <button type="button" class="button button-danger" onClick={() => setConfirm(true)}>
            Leave #{channel.name}
          </button>
        </div>
      )}
      <Outcome action={action} />
    </section>
  );
}
