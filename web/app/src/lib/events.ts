// The live events over GET /events, a WebSocket (docs/decisions.md, "Live events for browsers:
// Subscribe or WebSocket"): the events of Subscribe, each a binary message holding one protobuf
// Event, with Subscribe's replay (after_seq), resync and token expiry. The codec and the access
// token go as subprotocols (hearth.v1.proto, hearth.v1.bearer.<token>), never in the URL; a
// refusal comes as the close code 4000 + the Connect code with the server's words as its
// reason, and is thrown as that ConnectError, so the session treats both streams alike.

import { fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { EventSchema, type Event } from "../gen/svc/v1/events_pb";

/** Close codes past this are 4000 + a Connect code. */
const CLOSE_CODE_BASE = 4000;

/**
 * Thrown when the WebSocket closed before it opened: nothing of the stream came, and the
 * session may take Subscribe instead (a proxy that does not pass the upgrade).
 */
export class NeverOpened extends ConnectError {
  constructor() {
    super("the event stream's WebSocket did not open", Code.Unavailable);
  }
}

/** The ws: or wss: URL of GET /events at the server whose base URL is base. */
export function eventsUrl(base: string, afterSeq: bigint): string {
  const u = new URL(base + "/events");
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  u.searchParams.set("after_seq", afterSeq.toString());
  return u.href;
}

/**
 * The events after afterSeq, as they come, until the server ends the stream (the iteration
 * ends), refuses it or is cut off (a ConnectError: NeverOpened when nothing came at all), or
 * signal aborts (Code.Canceled).
 */
export async function* websocketEvents(base: string, token: string, afterSeq: bigint, signal: AbortSignal): AsyncGenerator<Event> {
  if (signal.aborted) throw new ConnectError("the event stream was stopped", Code.Canceled);
  const ws = new WebSocket(eventsUrl(base, afterSeq), ["hearth.v1.proto", "hearth.v1.bearer." + token]);
  ws.binaryType = "arraybuffer";
  // What came and has not been taken yet; the server bounds what it sends by its queue.
  const queue: Event[] = [];
  let ended: { error?: ConnectError } | undefined;
  let opened = false;
  let wakeUp: (() => void) | undefined;
  const wake = () => {
    wakeUp?.();
    wakeUp = undefined;
  };
  const end = (error?: ConnectError) => {
    if (!ended) ended = { error };
    wake();
  };
  ws.onopen = () => {
    opened = true;
  };
  ws.onmessage = (e: MessageEvent) => {
    if (!(e.data instanceof ArrayBuffer)) return end(new ConnectError("the event stream sent text where events are binary", Code.Internal));
    try {
      queue.push(fromBinary(EventSchema, new Uint8Array(e.data)));
    } catch {
      return end(new ConnectError("the event stream sent an event that cannot be read", Code.Internal));
    }
    wake();
  };
  ws.onclose = (e: CloseEvent) => {
    if (e.code > CLOSE_CODE_BASE && e.code <= CLOSE_CODE_BASE + Code.Unauthenticated) end(new ConnectError(e.reason, e.code - CLOSE_CODE_BASE));
    else if (!opened) end(new NeverOpened());
    else if (e.code === 1000 || e.code === 1001) end();
    else end(new ConnectError(`the event stream was cut (${e.code})`, Code.Unavailable));
  };
  const onAbort = () => end(new ConnectError("the event stream was stopped", Code.Canceled));
  signal.addEventListener("abort", onAbort);
  try {
    for (;;) {
      const ev = queue.shift();
      if (ev) {
        yield ev;
        continue;
      }
      if (ended) {
        if (ended.error) throw ended.error;
        return;
      }
      await new Promise<void>((done) => (wakeUp = done));
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    ws.onopen = ws.onmessage = ws.onclose = null;
    if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.close(1000);
  }
}
