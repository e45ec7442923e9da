// What the client keeps in the browser: a token per server URL (localStorage, shared by the
// tabs), the server a tab shows (sessionStorage, falling back to the last one used), and the
// tab's messages not yet sent, per server (sessionStorage: a reload of the tab retries them with
// the same client_id, and two tabs never overwrite each other's).

const TOKENS = "hearth.tokens";
const LAST = "hearth.lastServer";
const CURRENT = "hearth.server";
const PENDING = "hearth.pending.";

/** Normalizes a server URL (http or https, no trailing slash), or returns "" if it is none. */
export function normalizeServer(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol !== "http:" && u.protocol !== "https:") return "";
    if (u.username || u.password) return "";
    return (u.origin + u.pathname).replace(/\/+$/, "");
  } catch {
    return "";
  }
}

/** The server this copy of the client was served by: the page's URL without /app/. */
export function ownServer(): string {
  return normalizeServer(new URL("..", location.href).href);
}

function readJSON<T>(store: Storage, key: string, fallback: T): T {
  try {
    const raw = store.getItem(key);
    return raw ? (JSON.parse(raw) as T) : fallback;
  } catch {
    return fallback;
  }
}

export function getToken(server: string): string | undefined {
  return readJSON<Record<string, string>>(localStorage, TOKENS, {})[server];
}

export function setToken(server: string, token: string): void {
  const all = readJSON<Record<string, string>>(localStorage, TOKENS, {});
  all[server] = token;
  localStorage.setItem(TOKENS, JSON.stringify(all));
}

export function dropToken(server: string): void {
  const all = readJSON<Record<string, string>>(localStorage, TOKENS, {});
  delete all[server];
  localStorage.setItem(TOKENS, JSON.stringify(all));
}

export function currentServer(): string {
  return sessionStorage.getItem(CURRENT) || localStorage.getItem(LAST) || ownServer();
}

export function setCurrentServer(server: string): void {
  sessionStorage.setItem(CURRENT, server);
  localStorage.setItem(LAST, server);
}

export function loadPending<T>(server: string): T[] {
  return readJSON<T[]>(sessionStorage, PENDING + server, []);
}

export function savePending<T>(server: string, list: T[]): void {
  if (list.length === 0) sessionStorage.removeItem(PENDING + server);
  else sessionStorage.setItem(PENDING + server, JSON.stringify(list));
}
