// New messages told to a screen reader. The message list is a log whose window changes in
// bulk (fifty older messages loaded above, a window replaced by a jump, reactions and reply
// counts changing in place): as a live region it would read all of that out. So the list is
// not live, and this tells only what a person would want to hear: messages from others that
// arrive while the list is at the live end, as "Name: text" (the text as plain words, without
// the markdown's markers), at most one announcement every two seconds (messages that come in
// between are counted into the next: "3 new messages, the last from Name: text").

import { useEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../gen/svc/v1/types_pb";
import { plainText } from "../lib/markdown";
import type { State } from "../state/store";
import type { MessageView } from "../state/view";
import { memberName, nameOf } from "../state/selectors";

const QUIET_MS = 2000;
const TEXT_MAX = 200; // characters of a message read out; the rest is in the list

/** What the list's live region says now: the newest arrivals from others. */
export function useArrivals(state: Pick<State, "me" | "members">, view: MessageView): string {
  const [said, setSaid] = useState("");
  const seen = useRef({ epoch: -1, newest: "", live: false });
  const waiting = useRef<Message[]>([]);
  const lastSaid = useRef(0);
  const timer = useRef(0);
  useEffect(() => () => clearTimeout(timer.current), []);

  // After every render: what joined the end of the window since the last one.
  useEffect(() => {
    const before = seen.current;
    const messages = view.messages;
    const newest = messages.length > 0 ? messages[messages.length - 1].id : "";
    const live = view.loaded && !view.hasAfter && view.loading === "";
    seen.current = { epoch: view.epoch, newest, live };
    // Only a window that was and still is at the live end, the same window (not a new one
    // loaded or jumped to), with a message after the newest it held (or a first one).
    if (!live || !before.live || before.epoch !== view.epoch || newest === before.newest) return;
    const from = before.newest ? messages.findIndex((m) => m.id === before.newest) : -1;
    if (before.newest && from < 0) return;
    const me = state.me?.id;
    const fresh = messages.slice(from + 1).filter((m) => m.authorId !== me && !m.deleted);
    if (fresh.length === 0) return;
    waiting.current.push(...fresh);
    const say = () => {
      clearTimeout(timer.current);
      timer.current = 0;
      if (waiting.current.length === 0) return;
      lastSaid.current = Date.now();
      setSaid(describe(state, waiting.current));
      waiting.current = [];
    };
    const wait = lastSaid.current + QUIET_MS - Date.now();
    if (wait <= 0) say();
    else if (!timer.current) timer.current = window.setTimeout(say, wait);
  });
  return said;
}

function describe(state: Pick<State, "members">, arrived: Message[]): string {
  const m = arrived[arrived.length - 1];
  const name = nameOf(state, m.authorId);
  // Read as it shows: "**bold**" is bold, not "star star bold".
  let text = plainText(m.text, (id) => memberName(state, id));
  const chars = [...text];
  if (chars.length > TEXT_MAX) text = chars.slice(0, TEXT_MAX).join("") + "…";
  const files = m.attachments.length;
  const what = text || (files === 1 ? "sent a file" : `sent ${files} files`);
  const said = text ? `${name}: ${what}` : `${name} ${what}`;
  return arrived.length === 1 ? said : `${arrived.length} new messages, the last from ${said}`;
}
