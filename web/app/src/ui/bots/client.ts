// BotService's client for the screens of ui/bots, made from the session's transport (lib/api.ts,
// Api.transport): the service's types load with these screens, on first use.

import { createClient, type Client } from "@connectrpc/connect";
import { BotService } from "../../gen/svc/v1/bot_pb";
import type { Api } from "../../lib/api";

const clients = new WeakMap<Api, Client<typeof BotService>>();

export function botClient(api: Api): Client<typeof BotService> {
  let c = clients.get(api);
  if (!c) clients.set(api, (c = createClient(BotService, api.transport)));
  return c;
}
