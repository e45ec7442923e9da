// The screen of someone the community banned: the server refuses their login with "banned" on
// every call, and Join would only say so again, so there is no join form, only the way to use
// another account. A ban takes effect live: the stream ends, the next call is refused, and this
// screen replaces the chat.

import { useTopics } from "../../lib/emitter";
import type { Session } from "../../state/session";
import "./moderation.css";

/** Whether the server refused the person's login because it is banned. */
export function isBanned(session: Session): boolean {
  return /\bbanned\b/i.test(session.state.statusText);
}

export function Banned(props: { session: Session; onSignOut: () => void }) {
  const { session } = props;
  useTopics(session.em, "info", "status");
  const name = session.state.info?.name ?? "this community";
  return (
    <main class="welcome">
      <section class="welcome-box banned-box" role="alert" aria-labelledby="banned-title">
        <h2 id="banned-title">You are banned from {name}</h2>
        <p>A moderator banned this account. You cannot read or write here, or join again, unless a moderator lifts the ban.</p>
        <p class="muted small">The server said: {session.state.statusText}</p>
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onSignOut}>
            Use another account
          </button>
        </div>
      </section>
    </main>
  );
}
