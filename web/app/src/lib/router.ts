// Hash routes, so that one static copy of the client works at any path and from any origin:
//   #/token?url={server}&token={jwt}   a login link: keeps the token, then drops it from the bar
//   #/join?url={server}&invite={code}  an invite link (GET /invite/{code} redirects here)
//   #/c/{channel}                      a channel; /m/{message} jumps to a message in it,
//                                      /t/{message} opens that message's thread beside it
//   #/reports                          the moderators' reports queue (over the channel open)
//   #/                                 the first channel

import { useEffect, useState } from "preact/hooks";

export type Route = { path: string[]; params: URLSearchParams };

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#\/?/, "");
  const q = raw.indexOf("?");
  const pathPart = q >= 0 ? raw.slice(0, q) : raw;
  const query = q >= 0 ? raw.slice(q + 1) : "";
  return {
    path: pathPart.split("/").filter(Boolean).map(decodeURIComponent),
    params: new URLSearchParams(query),
  };
}

export function navigate(hash: string, replace = false): void {
  if (location.hash === hash) return;
  if (replace) history.replaceState(null, "", hash);
  else history.pushState(null, "", hash);
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

export function channelHash(channelId: string, extra?: { message?: string; thread?: string }): string {
  let h = "#/c/" + encodeURIComponent(channelId);
  if (extra?.message) h += "/m/" + encodeURIComponent(extra.message);
  else if (extra?.thread) h += "/t/" + encodeURIComponent(extra.thread);
  return h;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", on);
    window.addEventListener("popstate", on);
    return () => {
      window.removeEventListener("hashchange", on);
      window.removeEventListener("popstate", on);
    };
  }, []);
  return route;
}
