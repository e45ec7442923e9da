// The invites screen (moderators and up): create an invite with an expiry and a number of
// uses, and the invites not revoked with their uses and state (active, expired, used up), each
// with its link to copy and a way to revoke it. Invites have no events: the list is loaded when
// the screen opens, after each change here, and when the number of members changes.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Invite } from "../../gen/svc/v1/types_pb";
import type { Api } from "../../lib/api";
import { useStore, type State, type Store } from "../../state/store";
import { ErrorRow, formatFull, useLoaded } from "../common";
import { communityHash, copyText, inWords, Outcome, useAction } from "./parts";
import { isAdmin } from "../../lib/ranks";
import { nameOf } from "../../state/selectors";

const EXPIRY: [number, string][] = [
  [1800, "30 minutes"],
  [3600, "1 hour"],
  [6 * 3600, "6 hours"],
  [86400, "1 day"],
  [7 * 86400, "7 days"],
  [30 * 86400, "30 days"],
  [0, "Never"],
];

const USES: [number, string][] = [
  [0, "No limit"],
  [1, "1 use"],
  [5, "5 uses"],
  [10, "10 uses"],
  [25, "25 uses"],
  [100, "100 uses"],
];

export type InviteState = "active" | "expired" | "used up";

export function inviteState(inv: Invite, now: number): InviteState {
  if (inv.maxUses > 0 && inv.uses >= inv.maxUses) return "used up";
  if (inv.expiresAtMs > 0n && Number(inv.expiresAtMs) <= now) return "expired";
  return "active";
}

/** The link that brings a person in with an invite: the server's public URL, else this one. */
export function inviteLink(state: Pick<State, "info">, base: string, code: string): string {
  return (state.info?.baseUrl || base) + "/invite/" + code;
}

export function InvitesScreen(props: { store: Store; api: Api }) {
  const { store, api } = props;
  const state = useStore(store, "info");
  const { list: invites, setList: setInvites, error, reload: load } = useLoaded<Invite>(() => api.server.listInvites({}).then((res) => res.invites));
  const [fresh, setFresh] = useState("");
  useEffect(() => {
    // A join may have used an invite up (presence changes, which come far more often, do not).
    let timer = 0;
    let count = store.state.members.size;
    const off = store.em.on("members", () => {
      if (store.state.members.size === count) return;
      count = store.state.members.size;
      clearTimeout(timer);
      timer = window.setTimeout(load, 300);
    });
    return () => (off(), clearTimeout(timer));
  }, []);
  const now = Date.now();
  return (
    <div class="admin-page">
      {state.info && !state.info.inviteOnly && (
        <p class="note">
          The community is open: anyone who can reach it may join without an invite.{" "}
          {isAdmin(state) ? (
            <>
              Turn on <a href={communityHash("settings")}>Invite only</a> in the settings to let in only people with an invite.
            </>
          ) : (
            "Admins can make it invite only."
          )}
        </p>
      )}
      <CreateInvite
        api={api}
        onCreated={(inv) => {
          setFresh(inv.code);
          setInvites((list) => [inv, ...(list ?? []).filter((x) => x.code !== inv.code)]);
        }}
      />
      <section class="admin-section" aria-labelledby="invites-title">
        <h2 id="invites-title">Invites</h2>
        <ErrorRow error={error} />
        {invites === null && !error && <p class="muted">Loading the invites…</p>}
        {invites?.length === 0 && <p class="muted">There are no invites.</p>}
        {invites && invites.length > 0 && (
          <ul class="invite-list" aria-label="Invites">
            {invites.map((inv) => (
              <InviteRow key={inv.code} state={state} base={store.base} api={api} invite={inv} now={now} fresh={inv.code === fresh} onRevoked={load} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function InviteRow(props: { state: State; base: string; api: Api; invite: Invite; now: number; fresh: boolean; onRevoked: () => void }) {
  const { api, invite: inv } = props;
  const [copied, setCopied] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const action = useAction();
  const link = inviteLink(props.state, props.base, inv.code);
  const state = inviteState(inv, props.now);
  const input = useRef<HTMLInputElement>(null);
  const copy = async () => {
    const ok = await copyText(link);
    if (!ok) input.current?.select();
    setCopied(ok);
    if (ok) window.setTimeout(() => setCopied(false), 2500);
  };
  const revoke = async () => {
    const ok = await action.run(() => api.server.revokeInvite({ code: inv.code }), "", "The invite was not revoked");
    if (ok) props.onRevoked();
  };
  const expires =
    inv.expiresAtMs === 0n
      ? "Never expires"
      : state === "expired"
        ? `Expired ${formatFull(inv.expiresAtMs)}`
        : `Expires in ${inWords(Number(inv.expiresAtMs) - props.now)}`;
  return (
    <li class={`invite-row invite-${state.replace(" ", "-")}${props.fresh ? " invite-fresh" : ""}`} data-code={inv.code}>
      <div class="invite-main">
        <div class="invite-head">
          <code class="invite-code">{inv.code}</code>
          <span class={`tag invite-state state-${state.replace(" ", "-")}`}>{state === "active" ? "Active" : state === "expired" ? "Expired" : "Used up"}</span>
        </div>
        <p class="muted small">
          {inv.uses} {inv.maxUses > 0 ? `of ${inv.maxUses}` : ""} {inv.uses === 1 && inv.maxUses === 0 ? "use" : "uses"} · {expires} · made by {nameOf(props.state, inv.createdBy)}
        </p>
        <div class="invite-link-row">
          <input ref={input} class="input invite-link" readOnly value={link} aria-label={`Link of invite ${inv.code}`} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" class="button" aria-label={`Copy the link of invite ${inv.code}`} onClick={copy}>
            {copied ? "Copied" : "Copy link"}
          </button>
          {!confirm && (
            <button type="button" class="button" aria-label={`Revoke invite ${inv.code}`} onClick={() => setConfirm(true)}>
              Revoke
            </button>
          )}
        </div>
        {confirm && (
          <div class="confirm-box" role="group" aria-label={`Revoke invite ${inv.code}`}>
            <p>Revoke this invite? Its link stops working; people who joined with it stay.</p>
            <div class="dialog-actions">
              <button type="button" class="button" onClick={() => setConfirm(false)}>
                Keep it
              </button>
              <button type="button" class="button button-danger" disabled={action.busy} onClick={revoke}>
                Revoke invite
              </button>
            </div>
          </div>
        )}
        <Outcome action={action} />
      </div>
    </li>
  );
}

function CreateInvite(props: { api: Api; onCreated: (inv: Invite) => void }) {
  const { api } = props;
  const [expiry, setExpiry] = useState(7 * 86400);
  const [uses, setUses] = useState(0);
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const res = await action.run(() => api.server.createInvite({ expiresInSeconds: BigInt(expiry), maxUses: uses }), "", "Could not create the invite");
    if (res?.invite) props.onCreated(res.invite);
  };
  return (
    <section class="admin-section" aria-labelledby="new-invite-title">
      <h2 id="new-invite-title">Create an invite</h2>
      <form class="form admin-form" onSubmit={submit}>
        <div class="field-row">
          <label class="field">
            <span>Expires after</span>
            <select class="input" value={String(expiry)} onChange={(e) => setExpiry(Number(e.currentTarget.value))}>
              {EXPIRY.map(([s, label]) => (
                <option key={s} value={String(s)}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Uses</span>
            <select class="input" value={String(uses)} onChange={(e) => setUses(Number(e.currentTarget.value))}>
              {USES.map(([n, label]) => (
                <option key={n} value={String(n)}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        </div>
        <Outcome action={action} />
        <div class="dialog-actions">
          <button type="submit" class="button button-primary" disabled={action.busy}>
            Create invite
          </button>
        </div>
      </form>
    </section>
  );
}
