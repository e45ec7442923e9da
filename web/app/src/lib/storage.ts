// What the client keeps in the browser: the tokens per server URL (localStorage, shared by the
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

/** What a tab needs to call a server as the person: an access token, and, when the sign-in
 * went through an issuer (not a login link), what refreshes it. */
export type Creds = {
  access: string;
  refresh?: string;
  /** When the access token expires, in Unix milliseconds (unknown for a login link). */
  expiresAt?: number;
  issuer?: string;
  clientId?: string;
  tokenEndpoint?: string;
  revocationEndpoint?: string;
};

export function getCreds(server: string): Creds | undefined {
  return readJSON<Record<string, Creds>>(localStorage, TOKENS, {})[server];
}

export function setCreds(server: string, creds: Creds): void {
  const all = readJSON<Record<string, Creds>>(localStorage, TOKENS, {});
  all[server] = creds;
  localStorage.setItem(TOKENS, JSON.stringify(all));
}

export function dropCreds(server: string): void {
  const all = readJSON<Record<string, Creds>>(localStorage, TOKENS, {});
  delete all[server];
  localStorage.setItem(TOKENS, JSON.stringify(all));
}

/** The access token for a server, as it is now (lib/oidc's accessToken refreshes it). */
export function getToken(server: string): string | undefined {
  return getCreds(server)?.access;
}

/** Keeps a token from a login link: an access token alone, used until it expires. */
export function setToken(server: string, token: string): void {
  setCreds(server, { access: token });
}

/** Where an invite link's code waits (sessionStorage) for the person to sign in and join. */
export function inviteKey(server: string): string {
  return "hearth.invite." + server;
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
