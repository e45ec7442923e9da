// The audit log, for moderators and higher: every moderation and administration action, newest
// first, with who did it (none: the server itself, as for a message a filter refused), to whom,
// where, why and what changed. Filtered by action and by person (actor or target; a name in an
// entry filters by that person), paged with "Show older", and live: entries that come by the
// stream (audit_appended, State.audit) and match the filters show on top. Of the people no
// longer in the community, the banned are named from the bans list; the API names no one else
// who left, who is "a former member".

import { useEffect, useRef, useState } from "preact/hooks";
import { AuditAction, type AuditEntry, type Member } from "../../gen/svc/v1/types_pb";
import { errorText, type Api } from "../../lib/api";
import { idOfUsername, nameOf } from "../../state/selectors";
import { useStore, type State, type Store } from "../../state/store";
import { ErrorRow, formatFull } from "../common";
import { ago } from "./parts";
import "./moderation.css";

/**
 * Each action: its name in the filter, and what its entry says ({t}: the target member, {c}: the
 * channel; the entry of any other action about a channel says in which).
 */
const ACTIONS: [AuditAction, string, string][] = [
  [AuditAction.MEMBER_KICKED, "Kicks", "kicked {t}"],
  [AuditAction.MEMBER_BANNED, "Bans", "banned {t}"],
  [AuditAction.MEMBER_UNBANNED, "Unbans", "unbanned {t}"],
  [AuditAction.MEMBER_TIMED_OUT, "Timeouts", "timed out {t}"],
  [AuditAction.MEMBER_RANK_CHANGED, "Rank changes", "changed the rank of {t}"],
  [AuditAction.MEMBER_ROLES_CHANGED, "Members' roles changed", "changed the roles of {t}"],
  [AuditAction.MESSAGE_DELETED, "Messages deleted", "deleted a message by {t}"],
  [AuditAction.MESSAGE_REFUSED, "Messages refused by a filter", "refused a message from {t}"],
  [AuditAction.MESSAGE_PINNED, "Pins", "pinned a message"],
  [AuditAction.MESSAGE_UNPINNED, "Unpins", "unpinned a message"],
  [AuditAction.REPORT_RESOLVED, "Reports resolved", "resolved the reports of a message by {t}"],
  [AuditAction.LOCKDOWN_ON, "Lockdown on", "turned lockdown on"],
  [AuditAction.LOCKDOWN_OFF, "Lockdown off", "turned lockdown off"],
  [AuditAction.MODERATION_SETTINGS_CHANGED, "Moderation settings", "changed the moderation settings"],
  [AuditAction.SETTINGS_CHANGED, "Community settings", "changed the community settings"],
  [AuditAction.CHANNEL_CREATED, "Channels created", "created {c}"],
  [AuditAction.CHANNEL_UPDATED, "Channels changed", "changed {c}"],
  [AuditAction.CHANNEL_DELETED, "Channels deleted", "deleted {c}"],
  [AuditAction.ROLE_CREATED, "Roles created", "created a role"],
  [AuditAction.ROLE_UPDATED, "Roles changed", "changed a role"],
  [AuditAction.ROLE_DELETED, "Roles deleted", "deleted a role"],
  [AuditAction.INVITE_CREATED, "Invites made", "made an invite"],
  [AuditAction.INVITE_REVOKED, "Invites revoked", "revoked an invite"],
  [AuditAction.EMOJI_ADDED, "Emoji added", "added emoji"],
  [AuditAction.EMOJI_DELETED, "Emoji deleted", "deleted emoji"],
  [AuditAction.BOT_CREATED, "Bots created", "created a bot: {t}"],
  [AuditAction.BOT_DELETED, "Bots deleted", "deleted a bot: {t}"],
  [AuditAction.BOT_TOKEN_ROTATED, "Bot tokens replaced", "made a new token for {t}"],
  [AuditAction.PLUGIN_INSTALLED, "Plugins installed", "installed a plugin"],
  [AuditAction.PLUGIN_ENABLED, "Plugins turned on", "turned a plugin on"],
  [AuditAction.PLUGIN_DISABLED, "Plugins turned off", "turned a plugin off"],
  [AuditAction.PLUGIN_DELETED, "Plugins deleted", "deleted a plugin"],
  [AuditAction.PASSWORD_RESET_LINK_CREATED, "Password reset links", "made a password reset link for {t}"],
  [AuditAction.MEMBER_CLAIMED, "Imported members claimed", "claimed the imported member {t}"],
];

const PAGE = 50;

type Filter = { action: AuditAction; person: string };

function matches(e: AuditEntry, f: Filter): boolean {
  return (!f.action || e.action === f.action) && (!f.person || e.actorId === f.person || e.targetMemberId === f.person);
}

export function AuditLog(props: { store: Store; api: Api }) {
  const { store, api } = props;
  const state = useStore(store, "audit", "members", "channels");
  const [filter, setFilter] = useState<Filter>({ action: AuditAction.UNSPECIFIED, person: "" });
  const [who, setWho] = useState("");
  const [whoError, setWhoError] = useState("");
  const [page, setPage] = useState<{ entries: AuditEntry[]; more: boolean } | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState("");
  // Only the newest load's answer counts: the filters may change while one is on its way.
  const loads = useRef(0);
  const [banned, setBanned] = useState<ReadonlyMap<string, Member>>(new Map());
  useEffect(() => {
    api.server
      .listBans({})
      .then((res) => setBanned(new Map(res.bans.flatMap((b) => (b.member ? [[b.member.id, b.member] as const] : [])))))
      .catch(() => undefined);
  }, []);
  const name = (id: string) => {
    if (state.members.has(id)) return nameOf(state, id);
    const b = banned.get(id);
    return b ? `${b.displayName || b.username} (banned)` : "a former member";
  };

  const load = async (older: boolean) => {
    const n = ++loads.current;
    const before = older ? page?.entries.at(-1)?.id ?? "" : "";
    setLoading(true);
    try {
      const res = await api.server.listAuditLog({ beforeId: before, limit: PAGE, action: filter.action, memberId: filter.person });
      if (n !== loads.current) return;
      setPage({ entries: older ? [...(page?.entries ?? []), ...res.entries] : res.entries, more: res.hasMore });
      setError("");
    } catch (e) {
      if (n === loads.current) setError(errorText(e));
    } finally {
      if (n === loads.current) setLoading(false);
    }
  };
  useEffect(() => {
    setPage(null);
    void load(false);
  }, [filter.action, filter.person]);

  // Who to filter by: "@username", the username or the name as shown. As it is typed (or
  // picked from the list), a name that is someone's applies at once; once entered, one that is
  // nobody's is said so, and filters nothing.
  const choosePerson = (text: string, entered: boolean) => {
    setWho(text);
    const q = text.trim().replace(/^@/, "");
    const id = q ? idOfUsername(state, q) ?? [...state.members.values()].find((m) => m.displayName.toLowerCase() === q.toLowerCase())?.id : "";
    if (id === undefined && !entered) return;
    setFilter((f) => ({ ...f, person: id ?? "" }));
    setWhoError(id === undefined ? `Nobody here is called ${text.trim()}.` : "");
  };
  const byPerson = (id: string) => {
    const m = state.members.get(id);
    setWho(m ? "@" + m.username : name(id));
    setWhoError("");
    setFilter((f) => ({ ...f, person: id }));
  };

  const loaded = page?.entries ?? [];
  const newest = loaded[0]?.id ?? "";
  const shown = new Set(loaded.map((e) => e.id));
  // What came by the stream since the page was read (ids are in the log's order).
  const live = page ? state.audit.filter((e) => e.id > newest && !shown.has(e.id) && matches(e, filter)).reverse() : [];
  const entries = [...live, ...loaded];
  const filtered = !!(filter.action || filter.person);
  return (
    <div class="mod-pane">
      <div class="audit-filters" role="search" aria-label="Filter the audit log">
        <label class="field">
          <span>Action</span>
          <select class="input" value={filter.action} onChange={(e) => setFilter((f) => ({ ...f, action: Number(e.currentTarget.value) }))}>
            <option value={AuditAction.UNSPECIFIED}>All actions</option>
            {ACTIONS.map(([a, label]) => (
              <option key={a} value={a}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Person</span>
          <input
            class="input"
            type="search"
            list="audit-people"
            value={who}
            placeholder="@username"
            aria-invalid={whoError ? true : undefined}
            onInput={(e) => choosePerson(e.currentTarget.value, false)}
            onChange={(e) => choosePerson(e.currentTarget.value, true)}
          />
          <datalist id="audit-people">
            {[...state.members.values()].map((m) => (
              <option key={m.id} value={"@" + m.username}>
                {m.displayName || m.username}
              </option>
            ))}
          </datalist>
        </label>
      </div>
      <ErrorRow error={whoError} />
      <div class="mod-toolbar">
        <p class="muted small" role="status">
          {page === null ? "Loading the audit log…" : entries.length === 0 ? (filtered ? "No entries match." : "Nothing has been done yet.") : filtered ? "Matching entries, newest first." : "Newest first."}
        </p>
        {filtered && (
          <button type="button" class="button" onClick={() => (setWho(""), setWhoError(""), setFilter({ action: AuditAction.UNSPECIFIED, person: "" }))}>
            Show all
          </button>
        )}
      </div>
      <ErrorRow error={error} />
      {entries.length > 0 && (
        <ul class="audit-list" aria-label="Audit log">
          {entries.map((e) => (
            <AuditItem key={e.id} state={state} name={name} entry={e} onPerson={byPerson} />
          ))}
        </ul>
      )}
      {page?.more && (
        <button type="button" class="button audit-more" disabled={loading} onClick={() => load(true)}>
          {loading ? "Loading…" : "Show older entries"}
        </button>
      )}
    </div>
  );
}

function AuditItem(props: { state: State; name: (id: string) => string; entry: AuditEntry; onPerson: (id: string) => void }) {
  const { state, entry: e } = props;
  const found = ACTIONS.find(([a]) => a === e.action);
  let verb = found?.[2] ?? "did something";
  let detail = e.detail;
  if (e.action === AuditAction.MEMBER_TIMED_OUT && detail === "ended") {
    verb = "ended the timeout of {t}";
    detail = "";
  }
  const person = (id: string) => (
    <button type="button" class="audit-person" title="Show only the entries of this person" onClick={() => props.onPerson(id)}>
      {props.name(id)}
    </button>
  );
  const channel = e.channelId ? state.channels.get(e.channelId) : undefined;
  const where = channel ? "#" + channel.name : "a channel";
  const about = verb.includes("{c}");
  const [before, after] = verb.replace("{c}", where).split("{t}");
  return (
    <li class="audit-entry">
      <p class="audit-line">
        {e.actorId ? person(e.actorId) : <strong>Hearth</strong>} {before}
        {after !== undefined && (e.targetMemberId ? person(e.targetMemberId) : "someone")}
        {after}
        {e.channelId && !about && " in " + where}
        {detail && <span class="muted"> · {detail}</span>}
      </p>
      {e.reason && <p class="audit-reason">Reason: {e.reason}</p>}
      <p class="muted small">
        <time title={formatFull(e.atMs)}>{ago(e.atMs)}</time>
      </p>
    </li>
  );
}
