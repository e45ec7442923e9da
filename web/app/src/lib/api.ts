// The Connect clients of one server, and the helpers every screen uses to talk about errors
// and URLs. Calls use the binary protobuf encoding; the token is read at each call, so a new
// one takes effect at once.

import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { fromJson } from "@bufbuild/protobuf";
import { BotService } from "../gen/svc/v1/bot_pb";
import { ChatService } from "../gen/svc/v1/chat_pb";
import { ServerService } from "../gen/svc/v1/server_pb";
import { VoiceService } from "../gen/svc/v1/voice_pb";
import { ListEmojiResponseSchema, type CustomEmoji } from "../gen/svc/v1/types_pb";

export type Api = {
  base: string;
  token: () => Promise<string | undefined>;
  chat: Client<typeof ChatService>;
  server: Client<typeof ServerService>;
  bot: Client<typeof BotService>;
  voice: Client<typeof VoiceService>;
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
    bot: createClient(BotService, transport),
    voice: createClient(VoiceService, transport),
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

/** GET /emoji: the community's custom emoji by name (none when the server has no such list). */
export async function fetchEmoji(api: Api): Promise<Map<string, string>> {
  const res = await fetch(api.base + "/emoji", {
    headers: { Authorization: "Bearer " + ((await api.token()) ?? "") },
  });
  const out = new Map<string, string>();
  if (!res.ok) return out;
  const list = fromJson(ListEmojiResponseSchema, await res.json(), { ignoreUnknownFields: true });
  list.emoji.forEach((e: CustomEmoji) => out.set(e.name, absUrl(api.base, e.url)));
  return out;
}
