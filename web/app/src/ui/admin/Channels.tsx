// The channels screen (admins and the owner): create a channel, and the channels of the
// sidebar in their order, which is changed by dragging or from the keyboard; each opens its
// settings. Private channels show only to their members, admins included, so an admin orders
// the ones they see.

import { useId, useState } from "preact/hooks";
import { ChannelKind, type Channel } from "../../gen/svc/v1/types_pb";
import { LIMITS } from "../../lib/chars";
import { channelHash, navigate } from "../../lib/router";
import type { Api } from "../../lib/api";
import type { Commands } from "../../state/commands";
import { useStore, type State, type Store } from "../../state/store";
import type { ChannelMove } from "../../state/commands";
import { sortedChannels } from "../../state/selectors";
import { ChannelSettingsDialog, type ChannelSettingsCommands } from "./ChannelSettings";
import { Outcome, useAction } from "./parts";
import { knownRoles } from "./ranks";
import { ReorderList, type Move } from "./Reorder";
import { ErrorRow } from "../common";
import { limited } from "../limits";

/** Where each channel goes after a move: the renumbered groups it touches. */
export function planMove(channels: Channel[], m: Move): ChannelMove[] {
  const moved = channels.find((c) => c.id === m.id);
  if (!moved) return [];
  const groups = new Map<string, Channel[]>();
  for (const c of channels) {
    if (c.id === m.id) continue;
    const list = groups.get(c.category) ?? [];
    list.push(c);
    groups.set(c.category, list);
  }
  const target = groups.get(m.group) ?? [];
  target.splice(Math.min(m.index, target.length), 0, moved);
  groups.set(m.group, target);
  const touched = new Set([moved.category, m.group]);
  const out: ChannelMove[] = [];
  for (const g of touched) {
    (groups.get(g) ?? []).forEach((c, i) => {
      if (c.position !== i || c.category !== g) out.push({ channel: c, category: g, position: i });
    });
  }
  return out;
}

export type ChannelsCommands = ChannelSettingsCommands & Pick<Commands, "createChannel" | "moveChannels">;

export function ChannelsScreen(props: { store: Store; act: ChannelsCommands; api: Api }) {
  const { store, act } = props;
  const state = useStore(store, "channels", "members");
  const [editing, setEditing] = useState("");
  const [moveError, setMoveError] = useState("");
  const channels = sortedChannels(state);
  const categories = [...new Set(channels.map((c) => c.category))];

  const onMove = (m: Move) => {
    const plan = planMove(channels, m);
    if (plan.length === 0) return;
    setMoveError("");
    act.moveChannels(plan).catch((e: Error) => setMoveError(e.message));
  };

  return (
    <div class="admin-page">
      <CreateChannel act={act} categories={categories} onCreated={(id) => setEditing(id)} />
      <section class="admin-section" aria-labelledby="channel-order-title">
        <h2 id="channel-order-title">Channels and their order</h2>
        <p class="muted small">The sidebar shows the channels in this order, by category. Private channels are listed only for their members.</p>
        <ErrorRow error={moveError} />
        {channels.length === 0 ? (
          <p class="muted">There are no channels yet.</p>
        ) : (
          <ReorderList
            label="Channels"
            groups={categories.map((c) => ({ id: c, title: c || "Channels" }))}
            items={channels.map((c) => ({
              id: c.id,
              group: c.category,
              name: c.kind === ChannelKind.VOICE ? c.name + " (voice)" : "#" + c.name,
              content: <ChannelRow state={state} channel={c} onEdit={() => setEditing(c.id)} />,
            }))}
            onMove={onMove}
          />
        )}
      </section>
      {editing && <ChannelSettingsDialog store={store} act={act} api={props.api} channelId={editing} onClose={() => setEditing("")} />}
    </div>
  );
}

function ChannelRow(props: { state: State; channel: Channel; onEdit: () => void }) {
  const { channel: c } = props;
  const roles = knownRoles(props.state, c.roleIds);
  return (
    <div class="channel-row">
      <div class="channel-row-main">
        <a class="channel-row-name" href={channelHash(c.id)}>
          <span aria-hidden="true">{c.kind === ChannelKind.PRIVATE ? "🔒 " : c.kind === ChannelKind.VOICE ? "🔊 " : "# "}</span>
          {c.name}
        </a>
        {c.topic && <span class="muted small channel-row-topic">{c.topic}</span>}
      </div>
      <div class="chips">
        {c.kind === ChannelKind.PRIVATE && <span class="tag">Private · {c.memberIds.length} {c.memberIds.length === 1 ? "member" : "members"}</span>}
        {c.kind === ChannelKind.VOICE && <span class="tag">Voice</span>}
        {roles.length > 0 && <span class="tag">Only {roles.map((r) => r.name).join(", ")}</span>}
        {c.isDefault && <span class="tag">Default</span>}
      </div>
      <button type="button" class="button" aria-label={`Settings of #${c.name}`} onClick={props.onEdit}>
        Settings
      </button>
    </div>
  );
}

function CreateChannel(props: { act: Pick<Commands, "createChannel">; categories: string[]; onCreated: (id: string) => void }) {
  const [name, setName] = useState("");
  const [topic, setTopic] = useState("");
  const [category, setCategory] = useState("");
  const [kind, setKind] = useState(ChannelKind.TEXT);
  const action = useAction();
  const id = useId();
  const nameCheck = limited(id + "-name", name, LIMITS.channelName);
  const categoryCheck = limited(id + "-category", category.trim(), LIMITS.channelCategory);
  const topicCheck = limited(id + "-topic", topic, LIMITS.channelTopic);
  const over = nameCheck.over || categoryCheck.over || topicCheck.over;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (over) return;
    const ch = await action.run(() => props.act.createChannel({ name, topic, category: category.trim(), kind }), "", "Could not create the channel");
    if (!ch) return;
    setName("");
    setTopic("");
    props.onCreated(ch.id);
  };
  return (
    <section class="admin-section" aria-labelledby="new-channel-title">
      <h2 id="new-channel-title">Create a channel</h2>
      <form class="form admin-form" onSubmit={submit}>
        <div class="field-row">
          <label class="field">
            <span>Name</span>
            <input class="input" value={name} required placeholder="e.g. plant-swap" {...nameCheck.field} onInput={(e) => setName(e.currentTarget.value)} />
            {nameCheck.note}
          </label>
          <label class="field">
            <span>Category</span>
            <input class="input" value={category} list="channel-categories" placeholder="None" {...categoryCheck.field} onInput={(e) => setCategory(e.currentTarget.value)} />
            {categoryCheck.note}
            <datalist id="channel-categories">
              {props.categories.filter(Boolean).map((c) => (
                <option key={c} value={c} />
              ))}
            </datalist>
          </label>
        </div>
        <label class="field">
          <span>Topic</span>
          <input class="input" value={topic} {...topicCheck.field} onInput={(e) => setTopic(e.currentTarget.value)} />
          {topicCheck.note}
        </label>
        <fieldset class="choice-set">
          <legend>What kind, and who is in it</legend>
          <label class="check">
            <input type="radio" name="kind" checked={kind === ChannelKind.TEXT} onChange={() => setKind(ChannelKind.TEXT)} />
            <span>
              <strong>Open</strong> <span class="muted">every member sees it (you can limit it to roles afterwards)</span>
            </span>
          </label>
          <label class="check">
            <input type="radio" name="kind" checked={kind === ChannelKind.PRIVATE} onChange={() => setKind(ChannelKind.PRIVATE)} />
            <span>
              <strong>Private</strong> <span class="muted">only the people in it see it, admins included; you start as its only member</span>
            </span>
          </label>
          <label class="check">
            <input type="radio" name="kind" checked={kind === ChannelKind.VOICE} onChange={() => setKind(ChannelKind.VOICE)} />
            <span>
              <strong>Voice</strong> <span class="muted">people join it to talk and share their screens, up to 25 at once; every member sees it (you can limit it to roles afterwards)</span>
            </span>
          </label>
        </fieldset>
        <Outcome action={action} />
        <div class="dialog-actions">
          <button type="submit" class="button button-primary" disabled={action.busy || !name.trim() || over}>
            Create channel
          </button>
        </div>
      </form>
    </section>
  );
}

/** Opens a channel in the chat. */
export function openChannel(id: string): void {
  navigate(channelHash(id));
}
