// The screens before the chat: signing in, and joining the community (an invite code and the
// join questions on one page).

import { useEffect, useId, useState } from "preact/hooks";
import { absUrl, errorText } from "../lib/api";
import { LIMITS } from "../lib/chars";
import { renderMarkdown } from "../lib/markdown";
import { beginSignIn, listIssuers, type Issuer } from "../lib/oidc";
import { inviteKey, normalizeServer, setToken } from "../lib/storage";
import type { Commands } from "../state/commands";
import { useStore, type Store } from "../state/store";
import { ErrorRow } from "./common";
import { limited } from "./limits";

function CommunityCard(props: { store: Store }) {
  const { store } = props;
  const { info } = useStore(store, "info");
  if (!info) return null;
  const ctx = { memberName: () => undefined, meId: "", emoji: new Map<string, string>() };
  return (
    <div class="community-card">
      {info.iconUrl && <img class="community-icon" src={absUrl(store.base, info.iconUrl)} alt="" width={64} height={64} />}
      <h1>{info.name}</h1>
      {info.description && <div class="community-description">{renderMarkdown(info.description, ctx)}</div>}
      <p class="muted small">
        {info.memberCount} {info.memberCount === 1 ? "member" : "members"} · {store.base}
      </p>
    </div>
  );
}

export function SignIn(props: { store: Store; error: string; onSignedIn: () => void }) {
  // The status text as of the render: the app around re-renders for it.
  const { store } = props;
  const state = store.state;
  const [issuers, setIssuers] = useState<Issuer[] | null>(null);
  const [link, setLink] = useState("");
  const [error, setError] = useState(props.error);
  const [busy, setBusy] = useState(false);
  // Why the ways to sign in could not be listed (the link form is offered meanwhile).
  const [listError, setListError] = useState("");
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    setIssuers(null);
    setListError("");
    listIssuers(store.base)
      .then(setIssuers)
      .catch((e) => {
        setListError(`Could not load the ways to sign in: ${errorText(e)}.`);
        setIssuers([]);
      });
  }, [store.base, attempt]);
  const invite = sessionStorage.getItem(inviteKey(store.base)) ?? undefined;

  const go = async (issuer: Issuer) => {
    setError("");
    setBusy(true);
    try {
      await beginSignIn(store.base, issuer, { invite });
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  const paste = (e: Event) => {
    e.preventDefault();
    setError("");
    const raw = link.trim();
    let server = store.base;
    let token = raw;
    const hash = raw.indexOf("#/token?");
    if (hash >= 0) {
      const params = new URLSearchParams(raw.slice(hash + "#/token?".length));
      server = normalizeServer(params.get("url") ?? "") || store.base;
      token = params.get("token") ?? "";
    }
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) {
      setError("That is not a sign-in link: it should contain #/token?url=…&token=…");
      return;
    }
    if (server !== store.base) {
      setError(`That link is for ${server}, not ${store.base}.`);
      return;
    }
    setToken(server, token);
    props.onSignedIn();
  };

  const linkForm = (
    <form class="form" onSubmit={paste}>
      <label class="field">
        <span>Sign-in link</span>
        <input class="input" value={link} onInput={(e) => setLink((e.target as HTMLInputElement).value)} autoComplete="off" />
      </label>
      <div class="dialog-actions">
        <button type="submit" class="button">
          Sign in with the link
        </button>
      </div>
    </form>
  );
  return (
    <main class="welcome">
      <CommunityCard store={store} />
      <section class="welcome-box" aria-labelledby="signin-title">
        <h2 id="signin-title">Sign in</h2>
        <ErrorRow error={state.statusText} />
        <ErrorRow error={error} />
        {issuers === null && <p class="muted">Looking for the ways to sign in…</p>}
        {issuers && issuers.length > 0 && (
          <div class="issuers">
            {issuers.map((i) => (
              <button key={i.issuer} type="button" class="button button-primary issuer-button" disabled={busy} onClick={() => go(i)}>
                {i.builtIn ? (invite ? "Create an account or sign in" : "Sign in or create an account") : `Sign in with ${hostOf(i.issuer)}`}
              </button>
            ))}
          </div>
        )}
        {listError && (
          <div class="error-row" role="alert">
            {listError}{" "}
            <button type="button" class="button" onClick={() => setAttempt((n) => n + 1)}>
              Try again
            </button>
          </div>
        )}
        {issuers && issuers.length === 0 && (
          <>
            <p>
              Open the sign-in link the community's operator gave you (they make one with <code class="code">hearth login-link</code>), or paste it here.
            </p>
            {linkForm}
          </>
        )}
        {issuers && issuers.length > 0 && (
          <details class="link-details">
            <summary>Have a sign-in link?</summary>
            {linkForm}
          </details>
        )}
      </section>
    </main>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function JoinScreen(props: { store: Store; act: Pick<Commands, "join">; onJoined: () => void; onSignOut: () => void }) {
  const { store, act } = props;
  const state = useStore(store, "info", "status");
  const info = state.info;
  const questions = info?.joinQuestions ?? [];
  const [displayName, setDisplayName] = useState("");
  const [invite, setInvite] = useState(() => sessionStorage.getItem(inviteKey(store.base)) ?? "");
  const [answers, setAnswers] = useState<string[]>(() => questions.map(() => ""));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const notMember = /call Join first/.test(state.statusText);
  // Counted as sent: the name and code trimmed, the answers as typed.
  const id = useId();
  const nameCheck = limited(id + "-name", displayName.trim(), LIMITS.displayName);
  const inviteCheck = limited(id + "-invite", invite.trim(), LIMITS.inviteCode);
  const answerChecks = questions.map((_, i) => limited(`${id}-answer-${i}`, answers[i] ?? "", LIMITS.joinAnswer));
  const over = nameCheck.over || (!!info?.inviteOnly && inviteCheck.over) || answerChecks.some((c) => c.over);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (over) return;
    setError("");
    setBusy(true);
    try {
      const loaded = await act.join({
        displayName: displayName.trim(),
        inviteCode: invite.trim(),
        answers: questions.map((_, i) => answers[i] ?? ""),
      });
      sessionStorage.removeItem(inviteKey(store.base));
      if (loaded) props.onJoined();
      else setError(state.statusText);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="welcome">
      <CommunityCard store={store} />
      <section class="welcome-box" aria-labelledby="join-title">
        <h2 id="join-title">Join {info?.name ?? "the community"}</h2>
        {state.removed && (
          <p class="error-row" role="alert">
            You are no longer a member: a moderator removed you, or you left from another device. You can join again.
          </p>
        )}
        {info?.lockdown && <p class="muted">This community is closed to new members for now (lockdown): joining will work again once it reopens.</p>}
        {!notMember && state.statusText && (
          <p class="error-row" role="alert">
            {state.statusText}
          </p>
        )}
        <form class="form" onSubmit={submit}>
          <label class="field">
            <span>Your name here (optional)</span>
            <input class="input" value={displayName} autoComplete="name" {...nameCheck.field} onInput={(e) => setDisplayName((e.target as HTMLInputElement).value)} />
            {nameCheck.note}
          </label>
          {info?.inviteOnly && (
            <label class="field">
              <span>Invite code</span>
              <input class="input" value={invite} required autoComplete="off" {...inviteCheck.field} onInput={(e) => setInvite((e.target as HTMLInputElement).value)} />
              {inviteCheck.note}
            </label>
          )}
          {questions.map((q, i) => (
            <label class="field" key={i}>
              <span>{q}</span>
              <textarea
                class="input"
                rows={2}
                required
                value={answers[i] ?? ""}
                {...answerChecks[i].field}
                onInput={(e) => {
                  const next = answers.slice();
                  next[i] = (e.target as HTMLTextAreaElement).value;
                  setAnswers(next);
                }}
              />
              {answerChecks[i].note}
            </label>
          ))}
          <ErrorRow error={error} />
          <div class="dialog-actions">
            <button type="button" class="button" onClick={props.onSignOut}>
              Use another account
            </button>
            <button type="submit" class="button button-primary" disabled={busy || over}>
              {busy ? "Joining…" : "Join"}
            </button>
          </div>
        </form>
      </section>
    </main>
  );
}
