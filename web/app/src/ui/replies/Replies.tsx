// Replies (EXTENSIONS.md 1): a message answered from its actions (or R on a focused message)
// puts "Replying to ..." above its message box (the draft's replyTo, state/drafts.ts), which
// Escape or its ✕ cancels; the reply shows a quote of what it answers, as the server filled it
// (and as the stream's changes to that message keep it: state/view.ts, requote), that opens the
// answered message where it was written; "Original message deleted" once it is gone.

import type { Message } from "../../gen/svc/v1/types_pb";
import { plainText } from "../../lib/markdown";
import { channelHash, navigate } from "../../lib/router";
import { draftKey, setReplyTo, type ReplyRef } from "../../state/drafts";
import { memberName, nameOf } from "../../state/selectors";
import type { State, Store } from "../../state/store";
import { openMessage } from "../search/open";
import "./replies.css";

type Names = Pick<State, "members">;

/** What a reply keeps of the message it answers: as much of its text as a quote shows. */
export function replyRefOf(m: Message): ReplyRef {
  return { id: m.id, authorId: m.authorId, text: [...m.text].slice(0, 200).join("") };
}

/**
 * Answers m from the message box where it shows: the thread's in a thread (its root's too),
 * else the channel's. The box takes the focus (Composer, as its draft's replyTo changes).
 */
export function startReply(base: string, m: Message, inThread: boolean): void {
  setReplyTo(draftKey(base, m.channelId, inThread ? m.threadRootId || m.id : ""), replyRefOf(m));
}

/** The Reply action of a message's toolbar. */
export function ReplyAction(props: { base: string; message: Message; inThread: boolean }) {
  return (
    <button
      type="button"
      class="icon-button"
      aria-label="Reply"
      aria-keyshortcuts="R"
      title="Reply (R)"
      onClick={() => startReply(props.base, props.message, props.inThread)}
    >
      ↰
    </button>
  );
}

/** R on a focused message answers it. */
export function replyKey(e: KeyboardEvent, base: string, m: Message, inThread: boolean): void {
  if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey || e.key.toLowerCase() !== "r" || m.deleted) return;
  e.preventDefault();
  startReply(base, m, inThread);
}

/** A quote's text on one line: the markdown as it reads, the mentions by name. */
function quoteText(state: Names, text: string): string {
  return plainText(text, (id) => memberName(state, id));
}

/** "Replying to ..." above a message box, with its ✕. */
export function ReplyBar(props: { state: Names; reply: ReplyRef; onCancel: () => void }) {
  const { state, reply } = props;
  const name = nameOf(state, reply.authorId);
  return (
    <div class="reply-bar" role="status">
      <span class="reply-bar-text">
        Replying to <strong>{name}</strong>
        {reply.text && <span class="reply-bar-quote">: {quoteText(state, reply.text)}</span>}
      </span>
      <button type="button" class="icon-button" aria-label={`Cancel the reply to ${name}`} title="Cancel the reply (Escape)" onClick={props.onCancel}>
        ✕
      </button>
    </div>
  );
}

/** What a quote needs to open the answered message. */
export type QuoteHost = { state: Names; store: Pick<Store, "view"> };

/** The quote above a reply: who and what it answers, a button that opens it. */
export function ReplyQuote(props: { host: QuoteHost; message: Message }) {
  const { host, message: m } = props;
  const ref = m.replyTo;
  if (!ref) return null;
  const name = nameOf(host.state, ref.authorId);
  if (ref.deleted) {
    return (
      <p class="reply-quote reply-quote-deleted">
        <span aria-hidden="true" class="reply-quote-mark">
          ↱
        </span>{" "}
        Original message deleted
      </p>
    );
  }
  const text = quoteText(host.state, ref.text);
  return (
    <button type="button" class="reply-quote" aria-label={`Reply to ${name}: ${text.slice(0, 120)}. Show the message`} onClick={() => openAnswered(host, m)}>
      <span aria-hidden="true" class="reply-quote-mark">
        ↱
      </span>
      <span class="reply-quote-author">{name}</span>
      <span class="reply-quote-text">{text || "(a file)"}</span>
    </button>
  );
}

/**
 * Opens the message m answers: in m's thread when m is a thread reply (the answered one is in
 * the same thread); else where the answered one is, which the quote says (MessageRef's
 * thread_root_id): the channel, or the thread of a thread reply a top-level message answers.
 */
export function openAnswered(host: QuoteHost, m: Message): void {
  const id = m.replyTo?.id;
  if (!id) return;
  const { store } = host;
  if (m.threadRootId) {
    if (id === m.threadRootId) {
      // The thread's root heads the thread's panel.
      const root = document.querySelector<HTMLElement>(`.thread-panel .thread-root [data-id="${CSS.escape(id)}"]`);
      if (!root) return navigate(channelHash(m.channelId, { thread: id }));
      root.scrollIntoView({ block: "nearest" });
      root.focus({ preventScroll: true });
      return;
    }
    const thread = store.view(m.channelId, m.threadRootId, false);
    if (thread?.has(id)) return thread.highlight(id);
    return openMessage(store, { id, channelId: m.channelId, threadRootId: m.threadRootId });
  }
  const inThread = m.replyTo?.threadRootId ?? "";
  if (inThread) return openMessage(store, { id, channelId: m.channelId, threadRootId: inThread });
  const view = store.view(m.channelId, "", false);
  const here = channelHash(m.channelId);
  if (view?.has(id) && (location.hash === here || location.hash.startsWith(here + "/"))) return view.highlight(id);
  openMessage(store, { id, channelId: m.channelId, threadRootId: "" });
}
