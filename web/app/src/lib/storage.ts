// What the client keeps in the browser: the tokens per server URL (localStorage, shared by the
// tabs), the server a tab shows (sessionStorage, falling back to the last one used), and the
// tab's messages not yet sent, per server (sessionStorage: a reload of the tab retries them with
// the same client_id, and two tabs never overwrite each other's), and the message boxes' drafts,
// per server (localStorage: state/drafts.ts bounds them), this browser's Web Push
// subscription per server and member (localStorage), and the data export a member asked for,
// until its link expires (localStorage, dropped at sign-out).

const TOKENS = "hearth.tokens";
const LAST = "hearth.lastServer";
const CURRENT = "hearth.server";
const PENDING = "hearth.pending.";
const DRAFTS = "hearth.drafts.";
const FLAG = "hearth.show.";
const PUSH = "hearth.push.";
const EXPORT = "hearth.export.";

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

export function readJSON<T>(store: Storage, key: string, fallback: T): T {
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
  // A data export's link downloads the person's data: it goes with their sign-in.
  for (const key of Object.keys(localStorage)) {
    if (key.startsWith(EXPORT + server + " ")) localStorage.removeItem(key);
  }
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

/** The drafts kept for a server, by channel and thread (state/drafts.ts). */
export function loadDrafts<T>(server: string): Record<string, T> {
  try {
    return readJSON<Record<string, T>>(localStorage, DRAFTS + server, {});
  } catch {
    // A page without storage (turned off in the browser): the drafts live in the tab only.
    return {};
  }
}

/** Keeps a server's drafts; none left removes the entry. A full storage keeps what it had. */
export function saveDrafts<T>(server: string, all: Record<string, T>): void {
  try {
    if (Object.keys(all).length === 0) localStorage.removeItem(DRAFTS + server);
    else localStorage.setItem(DRAFTS + server, JSON.stringify(all));
  } catch {
    // Over the browser's quota, or no storage: the drafts are still in the tab.
  }
}

/** A panel the person keeps shown or hidden across visits (the member list), for every server. */
export function loadShown(panel: string): boolean {
  try {
    return localStorage.getItem(FLAG + panel) === "1";
  } catch {
    return false;
  }
}

export function saveShown(panel: string, shown: boolean): void {
  try {
    if (shown) localStorage.setItem(FLAG + panel, "1");
    else localStorage.removeItem(FLAG + panel);
  } catch {
    // No storage: shown for this page only.
  }
}

/**
 * This browser's push subscription for a member of a server, as the server has it (its id and
 * the push service's endpoint), or off: the person turned notifications off on this device.
 */
export type PushRecord = { id: string; endpoint: string } | { off: true };

export function getPushRecord(server: string, memberId: string): PushRecord | undefined {
  return readJSON<PushRecord | undefined>(localStorage, PUSH + server + " " + memberId, undefined);
}

export function setPushRecord(server: string, memberId: string, rec: PushRecord | undefined): void {
  writeOrRemove(PUSH + server + " " + memberId, rec);
}

/** Keeps value under key in localStorage, or removes the key for undefined. */
function writeOrRemove(key: string, value: unknown): void {
  if (value !== undefined) localStorage.setItem(key, JSON.stringify(value));
  else localStorage.removeItem(key);
}

/** A data export a member asked for: its signed link, and when that expires (Unix ms). */
export type DataExport = { url: string; expires: number };

/** The member's data export on this server whose link still works, if any. */
export function getExport(server: string, memberId: string): DataExport | undefined {
  const ex = readJSON<DataExport | undefined>(localStorage, EXPORT + server + " " + memberId, undefined);
  if (ex && typeof ex.url === "string" && ex.expires > Date.now()) return ex;
  localStorage.removeItem(EXPORT + server + " " + memberId);
  return undefined;
}

export function setExport(server: string, memberId: string, ex: DataExport | undefined): void {
  writeOrRemove(EXPORT + server + " " + memberId, ex);
}
