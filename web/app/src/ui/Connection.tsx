// The connection to the server while it is lost: a banner across the top of the chat that says
// so, that what is sent meanwhile goes when it is back, and offers to try again now (the
// session waits longer and longer between attempts). Shown after a moment, so that a stream
// reopened at once does not blink it; presence shows as unknown meanwhile (State.lost).

import { useEffect, useState } from "preact/hooks";
import type { Commands } from "../state/commands";
import { useStore, type Store } from "../state/store";
import "./connection.css";

/** How long the connection is down before the banner shows. */
const SHOW_AFTER_MS = 1000;

export function ConnectionBanner(props: { store: Store; act: Pick<Commands, "reconnectNow"> }) {
  const state = useStore(props.store, "status");
  const [shown, setShown] = useState(false);
  useEffect(() => {
    setShown(false);
    if (!state.lost) return;
    const timer = window.setTimeout(() => setShown(true), SHOW_AFTER_MS);
    return () => clearTimeout(timer);
  }, [state.lost]);
  if (!shown || !state.lost) return null;
  return (
    <div class="outage" role="alert">
      <span class="outage-mark" aria-hidden="true" />
      <p class="outage-text">
        <strong>No connection to the server.</strong> Reconnecting… What you send meanwhile goes when it is back.
      </p>
      <button type="button" class="button outage-retry" onClick={() => props.act.reconnectNow()}>
        Try now
      </button>
    </div>
  );
}
