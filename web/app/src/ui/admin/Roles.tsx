// The roles screen (admins and the owner): custom roles decide who sees role-limited channels,
// never what anyone may do. Create, rename, recolour, order (drag or keyboard) and delete; a
// role that still limits a channel cannot be deleted, which the screen says before and, when
// the server refuses, after, with the way to the channel's access.

import { Fragment } from "preact";
import { useId, useState } from "preact/hooks";
import type { Role } from "../../gen/svc/v1/types_pb";
import { LIMITS } from "../../lib/chars";
import type { Api } from "../../lib/api";
import type { Commands } from "../../state/commands";
import { useStore, type State, type Store } from "../../state/store";
import { ChannelSettingsDialog, RoleChip, type ChannelSettingsCommands } from "./ChannelSettings";
import { ColorField } from "./Color";
import { Outcome, useAction } from "./parts";
import { ReorderList, type Move } from "./Reorder";
import { ErrorRow } from "../common";
import { limited } from "../limits";

export type RolesCommands = ChannelSettingsCommands & Pick<Commands, "createRole" | "updateRole" | "deleteRole" | "moveRole">;

export function RolesScreen(props: { store: Store; act: RolesCommands; api: Api }) {
  const { store, act } = props;
  const state = useStore(store, "members", "channels");
  const [editing, setEditing] = useState("");
  const [deleting, setDeleting] = useState("");
  const [channel, setChannel] = useState("");
  const [moveError, setMoveError] = useState("");
  const roles = state.roles;

  const onMove = async (m: Move) => {
    setMoveError("");
    await act.moveRole(m.id, m.index).catch((e: Error) => setMoveError(e.message));
  };

  return (
    <div class="admin-page">
      <CreateRole act={act} />
      <section class="admin-section" aria-labelledby="roles-title">
        <h2 id="roles-title">Roles</h2>
        <p class="muted small">
          Roles decide who sees the channels limited to them; they give no permission. Members are given roles from their card on the Members page.
        </p>
        <ErrorRow error={moveError} />
        {roles.length === 0 ? (
          <p class="muted">There are no roles yet.</p>
        ) : (
          <ReorderList
            label="Roles"
            groups={[{ id: "", title: "" }]}
            items={roles.map((r) => ({
              id: r.id,
              group: "",
              name: r.name,
              content:
                editing === r.id ? (
                  <EditRole act={act} role={r} onDone={() => setEditing("")} />
                ) : (
                  <RoleRow
                    state={state}
                    act={act}
                    role={r}
                    deleting={deleting === r.id}
                    onEdit={() => (setEditing(r.id), setDeleting(""))}
                    onDelete={() => (setDeleting(r.id), setEditing(""))}
                    onCancelDelete={() => setDeleting("")}
                    onOpenChannel={setChannel}
                  />
                ),
            }))}
            onMove={onMove}
          />
        )}
      </section>
      {channel && <ChannelSettingsDialog store={store} act={act} api={props.api} channelId={channel} onClose={() => setChannel("")} />}
    </div>
  );
}

/** The channels the person sees that are limited to a role. */
function limitedBy(state: State, roleId: string) {
  return [...state.channels.values()].filter((c) => c.roleIds.includes(roleId));
}

function RoleRow(props: {
  state: State;
  act: Pick<Commands, "deleteRole">;
  role: Role;
  deleting: boolean;
  onEdit: () => void;
  onDelete: () => void;
  onCancelDelete: () => void;
  onOpenChannel: (id: string) => void;
}) {
  const { state, act, role } = props;
  const action = useAction();
  const holders = [...state.members.values()].filter((m) => m.roleIds.includes(role.id)).length;
  const channels = limitedBy(state, role.id);
  const remove = async () => {
    await action.run(() => act.deleteRole(role.id), "", `${role.name} was not deleted`);
  };
  const channelLinks = channels.map((c, i) => (
    <Fragment key={c.id}>
      {i > 0 && ", "}
      <button type="button" class="link-button" aria-label={`Open the access of #${c.name}`} onClick={() => props.onOpenChannel(c.id)}>
        #{c.name}
      </button>
    </Fragment>
  ));
  return (
    <div class="role-row">
      <div class="role-row-main">
        <RoleChip name={role.name} color={role.color} />
        <span class="muted small">
          {holders} {holders === 1 ? "member" : "members"}
          {channels.length > 0 && <> · limits {channels.map((c) => "#" + c.name).join(", ")}</>}
        </span>
      </div>
      {!props.deleting && (
        <div class="row-actions">
          <button type="button" class="button" aria-label={`Edit ${role.name}`} onClick={props.onEdit}>
            Edit
          </button>
          <button type="button" class="button" aria-label={`Delete ${role.name}`} onClick={props.onDelete}>
            Delete
          </button>
        </div>
      )}
      {props.deleting && (
        <div class="confirm-box" role="group" aria-label={`Delete ${role.name}`}>
          <p>
            Delete the role <strong>{role.name}</strong>? {holders > 0 ? `The ${holders} ${holders === 1 ? "member" : "members"} who hold it lose it.` : "Nobody holds it."}
          </p>
          <p class="muted small">
            A role that limits a channel cannot be deleted: take it off the channel's access first.
            {channels.length > 0 && <> It still limits {channelLinks}.</>}
          </p>
          <Outcome action={action}>
            {channels.length > 0 && <span class="error-help">Take it off {channelLinks} first, then delete it.</span>}
          </Outcome>
          <div class="dialog-actions">
            <button type="button" class="button" onClick={() => (action.clear(), props.onCancelDelete())}>
              Keep it
            </button>
            <button type="button" class="button button-danger" disabled={action.busy} onClick={remove}>
              Delete role
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

function EditRole(props: { act: Pick<Commands, "updateRole">; role: Role; onDone: () => void }) {
  const { act, role } = props;
  const [name, setName] = useState(role.name);
  const [color, setColor] = useState(role.color);
  const action = useAction();
  const nameCheck = limited(useId(), name.trim(), LIMITS.roleName);
  const save = async (e: Event) => {
    e.preventDefault();
    if (nameCheck.over) return;
    const saved = await action.run(() =>
      act.updateRole({
        roleId: role.id,
        name: name.trim() !== role.name ? name.trim() : undefined,
        color: color !== role.color ? color : undefined,
      }),
    );
    if (saved) props.onDone();
  };
  return (
    <form class="form role-edit" onSubmit={save} aria-label={`Edit ${role.name}`}>
      <label class="field">
        <span>Name</span>
        <input class="input" value={name} required {...nameCheck.field} onInput={(e) => setName(e.currentTarget.value)} />
        {nameCheck.note}
      </label>
      <ColorField label="Colour" value={color} onChange={setColor} />
      <Outcome action={action} />
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onDone}>
          Cancel
        </button>
        <button type="submit" class="button button-primary" disabled={action.busy || !name.trim() || nameCheck.over}>
          Save
        </button>
      </div>
    </form>
  );
}

function CreateRole(props: { act: Pick<Commands, "createRole"> }) {
  const { act } = props;
  const [name, setName] = useState("");
  const [color, setColor] = useState("");
  const action = useAction();
  const nameCheck = limited(useId(), name.trim(), LIMITS.roleName);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (nameCheck.over) return;
    const saved = await action.run(() => act.createRole(name.trim(), color), `Created ${name.trim()}.`, "Could not create the role");
    if (saved) setName("");
  };
  return (
    <section class="admin-section" aria-labelledby="new-role-title">
      <h2 id="new-role-title">Create a role</h2>
      <form class="form admin-form" onSubmit={submit}>
        <label class="field">
          <span>Role name</span>
          <input class="input" value={name} required placeholder="e.g. volunteers" {...nameCheck.field} onInput={(e) => setName(e.currentTarget.value)} />
          {nameCheck.note}
        </label>
        <ColorField label="Colour" value={color} onChange={setColor} />
        <Outcome action={action} />
        <div class="dialog-actions">
          <button type="submit" class="button button-primary" disabled={action.busy || !name.trim() || nameCheck.over}>
            Create role
          </button>
        </div>
      </form>
    </section>
  );
}
