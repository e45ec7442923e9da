// Signing in with OpenID Connect: authorization code with PKCE (S256), a public client, no
// cookie (docs/decisions.md, "Signing in from a browser"). The server lists the issuers the
// client may use (GET /oauth/issuers); the built-in one signs people up and in, with the invite
// code and join questions on its page. Tokens are kept per server; the access token is
// refreshed shortly before it expires, under a lock shared by the tabs, because a refresh token
// works once and a spent one presented again ends the whole sign-in.

import { getCreds, setCreds, dropCreds, type Creds } from "./storage";
import { isWebUrl } from "./api";

export type Issuer = { issuer: string; clientId: string; builtIn: boolean };

type Discovery = { authorization_endpoint: string; token_endpoint: string; revocation_endpoint?: string };

type PendingAuth = {
  server: string;
  issuer: string;
  clientId: string;
  state: string;
  verifier: string;
  redirectUri: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
};

const PENDING = "hearth.oidc";

/** The issuers a server lets the browser client use; none when it has no such list. */
export async function listIssuers(server: string): Promise<Issuer[]> {
  let res: Response;
  try {
    res = await fetch(server + "/oauth/issuers");
  } catch {
    throw new Error("cannot reach the server");
  }
  // A server that lists no issuers (none for browsers) has no such page; any other failure is
  // the server's trouble, not an absence of ways to sign in.
  if (res.status === 404) return [];
  if (!res.ok) throw new Error(`the server answered HTTP ${res.status}`);
  const body = (await res.json()) as { issuers?: { issuer: string; client_id: string; built_in?: boolean }[] };
  return (body.issuers ?? []).map((i) => ({ issuer: i.issuer, clientId: i.client_id, builtIn: !!i.built_in }));
}

async function discover(issuer: string): Promise<Discovery> {
  const res = await fetch(issuer.replace(/\/+$/, "") + "/.well-known/openid-configuration");
  if (!res.ok) throw new Error(`${issuer} has no OpenID configuration (HTTP ${res.status})`);
  const d = (await res.json()) as Discovery;
  if (!d.authorization_endpoint || !d.token_endpoint) throw new Error(`${issuer} names no authorization or token endpoint`);
  // The page goes there: any other scheme (javascript:, one that opens a program) is refused,
  // as the issuer is whatever the server the client was pointed at lists.
  if (!isWebUrl(d.authorization_endpoint) || !isWebUrl(d.token_endpoint)) throw new Error(`${issuer} names an authorization or token endpoint that is not an http or https URL`);
  return d;
}

/** The page the issuer sends the person back to: this page, without query or fragment. */
export function redirectUri(): string {
  return location.origin + location.pathname.replace(/index\.html$/, "");
}

/** Leaves for the issuer's sign-in page. invite and loginHint go to the built-in issuer only. */
export async function beginSignIn(server: string, issuer: Issuer, opts: { invite?: string; loginHint?: string } = {}): Promise<void> {
  const d = await discover(issuer.issuer);
  const verifier = randomString(48);
  const state = randomString(24);
  const pending: PendingAuth = {
    server,
    issuer: issuer.issuer,
    clientId: issuer.clientId,
    state,
    verifier,
    redirectUri: redirectUri(),
    tokenEndpoint: d.token_endpoint,
    revocationEndpoint: d.revocation_endpoint ?? "",
  };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const q = new URLSearchParams({
    response_type: "code",
    client_id: issuer.clientId,
    redirect_uri: pending.redirectUri,
    scope: "openid offline_access",
    state,
    code_challenge: base64url(await sha256(new TextEncoder().encode(verifier))),
    code_challenge_method: "S256",
  });
  if (issuer.builtIn && opts.invite) q.set("invite", opts.invite);
  if (issuer.builtIn && opts.loginHint) q.set("login_hint", opts.loginHint);
  location.assign(d.authorization_endpoint + (d.authorization_endpoint.includes("?") ? "&" : "?") + q.toString());
}

/**
 * Finishes a sign-in when the issuer sent the person back here (?code=&state=, or ?error=):
 * trades the code for tokens and keeps them. Returns the server signed in to, undefined when
 * the page was not opened by an issuer; throws with the issuer's words when it failed.
 */
export async function finishSignIn(): Promise<string | undefined> {
  const params = new URLSearchParams(location.search);
  if (!params.has("code") && !params.has("error")) return undefined;
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  // The code leaves the address bar and the history whatever happens next.
  history.replaceState(null, "", redirectUri() + "#/");
  const pending = raw ? (JSON.parse(raw) as PendingAuth) : undefined;
  if (!pending || params.get("state") !== pending.state) throw new Error("This sign-in was not started here; try again.");
  if (params.has("error")) {
    if (params.get("error") === "access_denied") return pending.server;
    throw new Error(params.get("error_description") || params.get("error") || "the sign-in failed");
  }
  const tokens = await tokenRequest(pending.tokenEndpoint, {
    grant_type: "authorization_code",
    code: params.get("code") ?? "",
    redirect_uri: pending.redirectUri,
    client_id: pending.clientId,
    code_verifier: pending.verifier,
  });
  setCreds(pending.server, {
    access: tokens.access_token,
    refresh: tokens.refresh_token,
    expiresAt: Date.now() + (tokens.expires_in ?? 3600) * 1000,
    issuer: pending.issuer,
    clientId: pending.clientId,
    tokenEndpoint: pending.tokenEndpoint,
    revocationEndpoint: pending.revocationEndpoint,
  });
  return pending.server;
}

type TokenAnswer = { access_token: string; refresh_token?: string; expires_in?: number };

class GrantError extends Error {}

async function tokenRequest(endpoint: string, form: Record<string, string>): Promise<TokenAnswer> {
  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
  } catch {
    throw new Error("cannot reach the sign-in server");
  }
  const body = (await res.json().catch(() => ({}))) as TokenAnswer & { error?: string; error_description?: string };
  if (!res.ok || !body.access_token) {
    const msg = body.error_description || body.error || `the sign-in server answered HTTP ${res.status}`;
    if (body.error === "invalid_grant") throw new GrantError(msg);
    throw new Error(msg);
  }
  return body;
}

/**
 * The access token to send to a server, refreshed first when it expires within two minutes.
 * Undefined when there is none, or when the sign-in has ended (the tokens are then dropped).
 */
export async function accessToken(server: string, force = false): Promise<string | undefined> {
  const creds = getCreds(server);
  if (!creds) return undefined;
  if (!needsRefresh(creds, force)) return creds.access;
  return withLock("hearth-refresh " + server, async () => {
    // Another tab may have refreshed meanwhile: its tokens are in storage. Forced (the server
    // refused the token, whatever time it has left by this clock), only that answers it.
    const now = getCreds(server);
    if (!now) return undefined;
    if (now.refresh !== creds.refresh || !needsRefresh(now, force)) return now.access;
    try {
      const t = await tokenRequest(now.tokenEndpoint!, {
        grant_type: "refresh_token",
        refresh_token: now.refresh!,
        client_id: now.clientId!,
      });
      const next: Creds = { ...now, access: t.access_token, refresh: t.refresh_token ?? now.refresh, expiresAt: Date.now() + (t.expires_in ?? 3600) * 1000 };
      setCreds(server, next);
      return next.access;
    } catch (e) {
      if (e instanceof GrantError) {
        dropCreds(server);
        return undefined;
      }
      // The sign-in server is away: the old token may still do.
      return now.access;
    }
  });
}

function needsRefresh(c: Creds, force: boolean): boolean {
  if (!c.refresh || !c.tokenEndpoint || !c.clientId) return false;
  return force || (c.expiresAt ?? 0) - Date.now() < 120_000;
}

/** Signs out of a server: the issuer revokes the refresh tokens, the client forgets them all. */
export async function signOut(server: string): Promise<void> {
  const c = getCreds(server);
  dropCreds(server);
  if (c?.refresh && c.revocationEndpoint && c.clientId) {
    await fetch(c.revocationEndpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: c.refresh, token_type_hint: "refresh_token", client_id: c.clientId }).toString(),
    }).catch(() => undefined);
  }
}

async function withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return fn();
  return locks.request(name, fn) as Promise<T>;
}

function randomString(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** base64url without padding (RFC 4648 5), as OAuth and Web Push write bytes. */
export function base64url(b: Uint8Array): string {
  let s = "";
  b.forEach((x) => (s += String.fromCharCode(x)));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** SHA-256: WebCrypto where the page is a secure context, else a small implementation of it. */
async function sha256(data: Uint8Array): Promise<Uint8Array> {
  if (crypto.subtle) return new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
  return sha256Fallback(data);
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export function sha256Fallback(data: Uint8Array): Uint8Array {
  const len = data.length;
  const padded = new Uint8Array(((len + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[len] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(len / 0x20000000));
  view.setUint32(padded.length - 4, (len << 3) >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  h.forEach((x, i) => ov.setUint32(i * 4, x));
  return out;
}
