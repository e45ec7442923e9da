// The screen of someone the community banned: the server refuses their login with "banned" on
// every call, and Join would only say so again, so there is no join form, only the way to use
// another account. A ban takes effect live: the stream ends, the next call is refused, and this
// screen replaces the chat.

import { useStore, type Store } from "../../state/store";
import "./moderation.css";

export function Banned(props: { store: Store; onSignOut: () => void }) {
  const state = useStore(props.store, "info", "status");
  const name = state.info?.name ?? "this community";
  return (
    <main class="welcome">
      <section class="welcome-box banned-box" role="alert" aria-labelledby="banned-title">
        <h2 id="banned-title">You are banned from {name}</h2>
        <p>A moderator banned this account. You cannot read or write here, or join again, unless a moderator lifts the ban.</p>
        <p class="muted small">The server said: {state.statusText}</p>
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onSignOut}>
            Use another account
          </button>
        </div>
      </section>
    </main>
  );
}
