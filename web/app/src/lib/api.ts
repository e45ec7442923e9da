// The Connect clients of one server, and the helpers every screen uses to talk about errors
// and URLs. Calls use the binary protobuf encoding; the token is read at each call, so a new
// one takes effect at once.

import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ChatService } from "../gen/svc/v1/chat_pb";
import { ServerService } from "../gen/svc/v1/server_pb";

export type Api = {
  base: string;
  token: () => Promise<string | undefined>;
  chat: Client<typeof ChatService>;
  server: Client<typeof ServerService>;
  /**
   * For the clients of the services only a screen loaded on first use calls (BotService,
   * ui/bots): that screen makes its client (createClient(BotService, api.transport)), so that
   * the service's types load with it rather than at every start.
   */
  transport: Transport;
};

export function makeApi(base: string, token: () => Promise<string | undefined>): Api {
  const bearer: Interceptor = (next) => async (req) => {
    const t = await token();
    if (t) req.header.set("Authorization", "Bearer " + t);
    return next(req);
  };
  const transport = createConnectTransport({
    baseUrl: base,
    useBinaryFormat: true,
    interceptors: [bearer],
  });
  return {
    base,
    token,
    chat: createClient(ChatService, transport),
    server: createClient(ServerService, transport),
    transport,
  };
}

/** The server's own words for a failed call, or a plain sentence for a network failure. */
export function errorText(e: unknown): string {
  if (e instanceof ConnectError) {
    if (e.code === Code.Unknown && /fetch|network/i.test(e.rawMessage)) return "cannot reach the server";
    return e.rawMessage || Code[e.code];
  }
  if (e instanceof Error) return e.message;
  return String(e);
}

export function codeOf(e: unknown): Code | undefined {
  return e instanceof ConnectError ? e.code : undefined;
}

/** How long a refusal asked to wait before trying again (its Retry-After), in ms; 0 for none. */
export function retryAfterMs(e: unknown): number {
  const s = e instanceof ConnectError ? Number(e.metadata.get("Retry-After")) : 0;
  return s > 0 ? s * 1000 : 0;
}

/** Whether trying the same call again later may succeed (the network or the server was away). */
export function retryable(e: unknown): boolean {
  const c = codeOf(e);
  return (
    c === undefined ||
    c === Code.Unknown ||
    c === Code.Unavailable ||
    c === Code.DeadlineExceeded ||
    c === Code.Aborted ||
    c === Code.Canceled ||
    c === Code.ResourceExhausted ||
    c === Code.Internal
  );
}

/** Makes a URL the server gave (relative to its base) absolute; other URLs pass as they are. */
export function absUrl(base: string, url: string): string {
  if (!url) return "";
  if (/^https?:\/\//i.test(url)) return url;
  if (url.startsWith("/")) return base + url;
  return base + "/" + url;
}

/**
 * Whether url is an absolute http or https URL, the only links the client makes of what a
 * server sends: the client may be pointed at any server, whose words must not become a
 * javascript:, data: or other scheme's link in this page. (The URL parser is what the browser
 * follows: it drops leading white space and control characters and ignores the scheme's case.)
 */
export function isWebUrl(url: string): boolean {
  try {
    const p = new URL(url).protocol;
    return p === "http:" || p === "https:";
  } catch {
    return false;
  }
}

/**
 * GET /emoji: the community's custom emoji by name (none when the server has no such list).
 * The answer is ListEmojiResponse as JSON; of each CustomEmoji the client reads its name and its
 * url, two strings, so it reads them as they are rather than with protobuf's JSON reader, which
 * the start would otherwise load for this alone (lib/protojson.ts).
 */
export async function fetchEmoji(api: Api): Promise<Map<string, string>> {
  const res = await fetch(api.base + "/emoji", {
    headers: { Authorization: "Bearer " + ((await api.token()) ?? "") },
  });
  const out = new Map<string, string>();
  if (!res.ok) return out;
  const list = ((await res.json()) as { emoji?: unknown } | null)?.emoji;
  if (!Array.isArray(list)) return out;
  for (const e of list as { name?: unknown; url?: unknown }[]) {
    if (typeof e?.name === "string" && typeof e.url === "string") out.set(e.name, absUrl(api.base, e.url));
  }
  return out;
}
