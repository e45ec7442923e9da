// What notifications need beside the chat, whatever is on screen: the app's badge (mentions and
// DMs not read), the service worker's "hearth-open" message (a notification clicked while this
// tab was open but not yet under the worker), and the banner that asks to turn notifications
// on, at a sensible moment: never on the first load, only once the person has been here a while
// or has sent a message, and never again once they said "Not now" (for 30 days).

import { useEffect, useRef, useState } from "preact/hooks";
import { navigate } from "../../lib/router";
import type { Commands } from "../../state/commands";
import { badgeCount } from "../../state/selectors";
import { useStore, type Store } from "../../state/store";
import "./notify.css";

/** How long the person uses the client before they are asked, without sending anything. */
export const ASK_AFTER_MS = 3 * 60_000;
/** How long "Not now" lasts. */
const NOT_NOW_MS = 30 * 24 * 3_600_000;
const NOT_NOW = "hearth.pushAsked.";

type AppBadge = { setAppBadge?: (n: number) => Promise<void>; clearAppBadge?: () => Promise<void> };

/** The app's badge, and the worker's messages. */
export function NotifyHost(props: { store: Store }) {
  const state = useStore(props.store, "channels", "prefs");
  const count = badgeCount(state, Date.now());
  useEffect(() => {
    const nav = navigator as Navigator & AppBadge;
    const done = count > 0 ? nav.setAppBadge?.(count) : nav.clearAppBadge?.();
    // No badge where the platform refuses it (a page not installed, a browser without badges).
    done?.catch(() => undefined);
  }, [count]);

  useEffect(() => {
    const sw = navigator.serviceWorker;
    if (!sw) return;
    const on = (e: MessageEvent) => {
      const data = e.data as { type?: string; url?: string } | null;
      if (data?.type !== "hearth-open" || typeof data.url !== "string") return;
      // Only a link into this page: the worker sends nothing else, and nothing else is followed.
      let url: URL;
      try {
        url = new URL(data.url, location.href);
      } catch {
        return;
      }
      if (url.origin !== location.origin || url.pathname !== location.pathname) return;
      window.focus();
      navigate(url.hash || "#/");
    };
    sw.addEventListener("message", on);
    sw.startMessages();
    return () => sw.removeEventListener("message", on);
  }, []);
  return null;
}

/**
 * The banner at the top of the main column that asks to turn notifications on: while this
 * device was never asked, once the person has sent a message or been here ASK_AFTER_MS.
 */
export function PushBanner(props: { store: Store; act: Pick<Commands, "enablePush"> }) {
  const { store } = props;
  useStore(store, "push", "pending");
  const key = NOT_NOW + store.base;
  const [dismissed, setDismissed] = useState(() => Number(localStorage.getItem(key) ?? 0) > Date.now() - NOT_NOW_MS);
  const [active, setActive] = useState(false);
  const sent = useRef(false);
  if (store.pending.length > 0) sent.current = true;
  useEffect(() => {
    const t = window.setTimeout(() => setActive(true), ASK_AFTER_MS);
    return () => clearTimeout(t);
  }, []);
  const push = store.push;
  if (dismissed || push.status !== "ask" || !(active || sent.current)) return null;
  const notNow = () => {
    localStorage.setItem(key, String(Date.now()));
    setDismissed(true);
  };
  return (
    <div class="main-banner push-banner" role="region" aria-label="Notifications">
      <p class="main-banner-text">
        <strong>Get notified when you are away?</strong> Mentions and direct messages reach you even with {store.state.info?.name || "Hearth"} closed.
      </p>
      <div class="main-banner-actions">
        <button type="button" class="button button-primary" disabled={push.busy} onClick={() => void props.act.enablePush()}>
          Turn on notifications
        </button>
        <button type="button" class="button" onClick={notNow}>
          Not now
        </button>
      </div>
    </div>
  );
}
