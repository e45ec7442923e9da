// The top of the client: which server this tab talks to, the links that bring a person in
// (#/token, #/join), and the screen the session's status calls for.

import { useEffect, useMemo, useState } from "preact/hooks";
import { useTopics } from "../lib/emitter";
import { navigate, useRoute } from "../lib/router";
import { finishSignIn, signOut as endSignIn } from "../lib/oidc";
import { currentServer, inviteKey, normalizeServer, ownServer, setCurrentServer, setToken } from "../lib/storage";
import { forgetDrafts } from "../state/drafts";
import { Session } from "../state/session";
import { Chat } from "./Chat";
import { isBanned } from "../state/selectors";
import { Banned } from "./moderation/Banned";
import { lazyView } from "./lazy";

// Signing in and joining: a chunk loaded only by those who are not in yet.
const SignIn = lazyView("the sign-in page", () => import("./Welcome"), (m) => m.SignIn);
const JoinScreen = lazyView("the join page", () => import("./Welcome"), (m) => m.JoinScreen);

/** Takes a login or invite link out of the address bar; returns the server it names, if any. */
function consumeLink(path: string[], params: URLSearchParams): string | undefined {
  if (path[0] !== "token" && path[0] !== "join") return undefined;
  const server = normalizeServer(params.get("url") ?? "") || ownServer();
  setCurrentServer(server);
  if (path[0] === "token") {
    const token = params.get("token");
    if (token) setToken(server, token);
  } else {
    const invite = params.get("invite");
    if (invite) sessionStorage.setItem(inviteKey(server), invite);
  }
  // The token never stays in the address bar or the history.
  navigate("#/", true);
  return server;
}

export function App() {
  const route = useRoute();
  const [server, setServer] = useState(() => currentServer());
  const [generation, setGeneration] = useState(0);
  // An issuer may have sent the person back here with a code: that comes first.
  const [booting, setBooting] = useState(true);
  const [signInError, setSignInError] = useState("");
  useEffect(() => {
    finishSignIn()
      .then((s) => {
        if (s) {
          setCurrentServer(s);
          setServer(s);
        }
      })
      .catch((e: Error) => setSignInError(e.message))
      .finally(() => setBooting(false));
  }, []);

  useEffect(() => {
    const s = consumeLink(route.path, route.params);
    if (s) {
      setServer(s);
      setGeneration((g) => g + 1);
    }
  }, [route]);

  // No session while a link is being taken in: it is about to name the server and the token.
  const linked = route.path[0] === "token" || route.path[0] === "join";
  const session = useMemo(() => (linked || booting ? undefined : new Session(server)), [server, generation, linked, booting]);
  useEffect(() => {
    if (!session) return;
    void session.start();
    return () => session.close();
  }, [session]);
  useTopics(session?.em, "status");

  const restart = () => setGeneration((g) => g + 1);
  if (!session) return <Splash text="Opening…" />;
  // Signing out leaves nothing of the person in the tab for whoever signs in next: neither
  // their messages not sent yet (they would go as the next person) nor their drafts.
  const signOut = () => {
    session.forgetPending();
    forgetDrafts(session.base);
    void endSignIn(session.base).finally(restart);
  };

  switch (session.state.status) {
    case "loading":
      return <Splash text="Connecting…" />;
    case "unreachable":
      return (
        <main class="welcome">
          <section class="welcome-box" role="alert">
            <h1>Cannot reach {session.base}</h1>
            <p>{session.state.statusText}</p>
            <button type="button" class="button button-primary" onClick={restart}>
              Try again
            </button>
          </section>
        </main>
      );
    case "signed-out":
      return <SignIn store={session} error={signInError} onSignedIn={restart} />;
    case "needs-join":
      if (isBanned(session.state)) return <Banned store={session} onSignOut={signOut} />;
      return <JoinScreen store={session} act={session.act} onJoined={() => navigate("#/", true)} onSignOut={signOut} />;
    case "ready":
      return <Chat store={session} act={session.act} api={session.api} route={route} onSignOut={signOut} />;
  }
}

function Splash(props: { text: string }) {
  return (
    <main class="splash" aria-busy="true">
      <p>{props.text}</p>
    </main>
  );
}
