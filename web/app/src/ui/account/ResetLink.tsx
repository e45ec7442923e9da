// "Reset password" on a member's card (EXTENSIONS.md 8): for admins and the owner, on a person
// of lower rank (not a bot). The server makes a link that sets a new password once, within 24
// hours; the admin copies it and hands it over themselves (a DM, a call). The server's refusal
// (no account with a password here, a rank changed meanwhile) shows as it says.

import { useEffect, useRef, useState } from "preact/hooks";
import { MemberKind, type Member } from "../../gen/svc/v1/types_pb";
import type { Api } from "../../lib/api";
import { isAdmin, outranksRank } from "../../lib/ranks";
import { useStore, type State, type Store } from "../../state/store";
import { formatFull } from "../common";
import { Outcome, useAction } from "../admin/parts";
import { copyText } from "../moderation/parts";
import "./account.css";

/** The person may make a reset link for this member: an admin or the owner, on a person below them. */
export function mayResetPassword(s: Pick<State, "me" | "members">, m: Member): boolean {
  return isAdmin(s) && m.id !== s.me?.id && m.kind !== MemberKind.BOT && outranksRank(s, m.role);
}

export function ResetPasswordItem(props: { store: Store; api: Api; member: Member }) {
  const { api, member: m } = props;
  const state = useStore(props.store, "me", "members");
  const [link, setLink] = useState<{ url: string; expires: number } | null>(null);
  const action = useAction();
  if (!mayResetPassword(state, m)) return null;
  const name = m.displayName || m.username;
  const make = () =>
    action.run(async () => {
      const res = await api.server.createPasswordResetLink({ memberId: m.id });
      setLink({ url: res.url, expires: Number(res.expiresAtMs) });
    });
  return (
    <div class="reset-password">
      {link ? (
        <ResetLinkBox name={name} username={m.username} url={link.url} expires={link.expires} />
      ) : (
        <button type="button" class="button" disabled={action.busy} onClick={make}>
          Reset password
        </button>
      )}
      <Outcome action={action} />
    </div>
  );
}

function ResetLinkBox(props: { name: string; username: string; url: string; expires: number }) {
  const box = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"" | "yes" | "no">("");
  useEffect(() => {
    box.current?.focus();
    box.current?.select();
  }, [props.url]);
  return (
    <section class="reset-box" aria-label={`Password reset link for ${props.name}`}>
      <p>
        <strong>A password reset link for @{props.username}.</strong> Give it to {props.name} yourself, in a direct message or in person: whoever opens it
        can set a new password, and every device signed in to the account is signed out.
      </p>
      <div class="reset-row">
        <input ref={box} class="input reset-input" readOnly value={props.url} aria-label="Password reset link" spellcheck={false} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" class="button button-primary" onClick={async () => setCopied((await copyText(props.url, box.current)) ? "yes" : "no")}>
          Copy
        </button>
      </div>
      <p class="muted small">Works once, until {formatFull(props.expires)}.</p>
      <p class="small" role="status">
        {copied === "yes" ? "Copied to the clipboard." : copied === "no" ? "The browser would not copy: select the link and copy it yourself." : ""}
      </p>
    </section>
  );
}
