// The bans list, for moderators and higher: every banned login with the profile it had when
// banned, who banned it, when and why, newest first; Unban where the person outranks the member as
// they were. An unbanned person is not back until they join again (no event is sent), so the
// list is loaded when it opens and on Refresh.

import { useState } from "preact/hooks";
import type { Ban } from "../../gen/svc/v1/types_pb";
import { errorText, type Api } from "../../lib/api";
import { outranksRank, RANK_NAMES } from "../../lib/ranks";
import type { State, Store } from "../../state/store";
import { Avatar, ErrorRow, formatFull, useLoaded } from "../common";
import { Confirm, ago } from "./parts";
import "./moderation.css";
import { nameOf } from "../../state/selectors";

export function Bans(props: { store: Store; api: Api }) {
  // The members as of the render (for who banned whom and the ranks): the dialog's, for "me".
  const { store, api } = props;
  const { list: bans, setList: setBans, error, reload } = useLoaded<Ban>(() => api.server.listBans({}).then((res) => res.bans));
  return (
    <div class="mod-pane">
      <div class="mod-toolbar">
        <p class="muted small" role="status">
          {bans === null ? "Loading bans…" : bans.length === 0 ? "Nobody is banned." : `${bans.length} ${bans.length === 1 ? "ban" : "bans"}, newest first.`}
        </p>
        <button type="button" class="button" onClick={reload}>
          Refresh
        </button>
      </div>
      <ErrorRow error={error} />
      {bans && bans.length > 0 && (
        <ul class="ban-list" aria-label="Bans">
          {bans.map((b) => (
            <BanItem key={b.member?.id} state={store.state} base={store.base} api={api} ban={b} onUnbanned={(id) => setBans((l) => l?.filter((x) => x.member?.id !== id) ?? null)} />
          ))}
        </ul>
      )}
    </div>
  );
}

function BanItem(props: { state: State; base: string; api: Api; ban: Ban; onUnbanned: (id: string) => void }) {
  const { state, api, ban } = props;
  const m = ban.member!;
  const name = m.displayName || m.username;
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const unban = async () => {
    setBusy(true);
    setError("");
    try {
      await api.server.unbanMember({ memberId: m.id });
      props.onUnbanned(m.id);
    } catch (e) {
      setError(errorText(e));
      setConfirm(false);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="ban" aria-label={`${name}, banned`}>
      <div class="ban-row">
        <Avatar base={props.base} member={m} size={36} />
        <div class="ban-who">
          <p>
            <strong>{name}</strong> <span class="muted">@{m.username}</span>
            {RANK_NAMES[m.role] && m.role > 1 && <span class="tag">{RANK_NAMES[m.role]}</span>}
          </p>
          <p class="muted small">
            Banned by {nameOf(state, ban.bannedBy)} <time title={formatFull(ban.bannedAtMs)}>{ago(ban.bannedAtMs)}</time>
          </p>
          {ban.reason && <p class="ban-reason small">Reason: {ban.reason}</p>}
        </div>
        {!confirm && outranksRank(state, m.role) && (
          <button type="button" class="button" aria-label={`Unban ${name}`} onClick={() => setConfirm(true)}>
            Unban
          </button>
        )}
      </div>
      {confirm && <Confirm text={`Unban ${name}? They can join again.`} action="Unban" busy={busy} onConfirm={unban} onCancel={() => setConfirm(false)} />}
      <ErrorRow error={error} />
    </li>
  );
}
