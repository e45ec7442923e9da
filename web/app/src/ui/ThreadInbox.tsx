// The thread inbox (#/threads): the threads the person is in (they wrote the root or replied),
// the one with the newest reply first, from ChatService.ListMyThreads, a page at a time. A
// thread with a reply of someone else after the person's read position in its channel is
// marked unread, and its count of new replies shown; opening it opens the thread beside its
// channel. The list loads again when a thread gets a reply.

import { useEffect, useRef, useState } from "preact/hooks";
import type { MyThread } from "../gen/svc/v1/chat_pb";
import { ChannelKind } from "../gen/svc/v1/types_pb";
import { errorText, type Api } from "../lib/api";
import { plainText } from "../lib/markdown";
import { channelHash } from "../lib/router";
import { claimed } from "../state/claims";
import { channelTitle, memberName, nameOf, othersUnread, readState } from "../state/selectors";
import { useStore, type State, type Store } from "../state/store";
import { Avatar, ErrorRow, formatFull, formatTime, MenuButton } from "./common";
import "./threadinbox.css";

const PAGE = 20;
/** How long after a reply comes the list loads again (several replies make one load). */
const RELOAD_AFTER_MS = 500;

/** Whether a thread has a reply the person has not read. */
export function threadUnread(s: Pick<State, "reads" | "me">, t: MyThread): boolean {
  const r = t.lastReply;
  return !!r && r.authorId !== s.me?.id && r.createdSeq > readState(s, r.channelId).lastReadSeq;
}

export function ThreadInbox(props: { store: Store; api: Api; onMenu: () => void }) {
  const { store, api } = props;
  const state = useStore(store, "channels", "members", "me");
  const [threads, setThreads] = useState<MyThread[] | null>(null);
  const [next, setNext] = useState(0n);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // Only the newest load's answer is shown (two loads can answer in either order).
  const generation = useRef(0);

  const load = async (before: bigint) => {
    const gen = ++generation.current;
    setBusy(true);
    try {
      const res = await api.chat.listMyThreads({ limit: PAGE, before });
      if (gen !== generation.current) return;
      setThreads((shown) => (before === 0n ? res.threads : [...(shown ?? []), ...res.threads]));
      setNext(res.nextBefore);
      setError("");
    } catch (e) {
      if (gen === generation.current) setError(errorText(e));
    } finally {
      if (gen === generation.current) setBusy(false);
    }
  };

  // The first page, and again a moment after a thread gets a reply.
  useEffect(() => {
    void load(0n);
    let timer = 0;
    const off = store.em.on("threads", () => {
      clearTimeout(timer);
      timer = window.setTimeout(() => void load(0n), RELOAD_AFTER_MS);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);

  // An imported member claimed while the list shows, or while the claim moves their messages:
  // the member in its place, as in the channels.
  const shown = threads?.map((t) => claimedThread(t, state.claims)) ?? null;
  const unread = (shown ?? []).filter((t) => threadUnread(state, t)).length;
  return (
    <section class="thread-inbox" aria-labelledby="threads-title">
      <header class="channel-head">
        <MenuButton unread={othersUnread(state, "")} onMenu={props.onMenu} />
        <h2 class="channel-title" id="threads-title">
          <span aria-hidden="true" class="hash">
            🧵
          </span>
          <span class="channel-name">Threads</span>
        </h2>
        {shown && <p class="channel-topic">{unread > 0 ? `${unread} with new replies` : "Threads you started or replied in"}</p>}
      </header>
      <div class="thread-inbox-scroll" aria-busy={busy}>
        <ErrorRow error={error} />
        {shown === null && !error && <p class="loading-row">Loading your threads…</p>}
        {shown?.length === 0 && <p class="thread-inbox-empty muted">No threads yet. The threads you start or reply in show here, the newest reply first.</p>}
        <ul class="thread-inbox-list" aria-label="Your threads">
          {shown?.map((t) => (
            <ThreadRow key={t.root?.id} store={store} state={state} thread={t} />
          ))}
        </ul>
        {next > 0n && (
          <button type="button" class="button thread-inbox-more" disabled={busy} onClick={() => void load(next)}>
            {busy ? "Loading…" : "Older threads"}
          </button>
        )}
      </div>
    </section>
  );
}

/** t with the claimed placeholders replaced by their members (state/claims.ts); t when none is. */
function claimedThread(t: MyThread, claims: ReadonlyMap<string, string>): MyThread {
  const root = t.root && claimed(t.root, claims);
  const lastReply = t.lastReply && claimed(t.lastReply, claims);
  return root === t.root && lastReply === t.lastReply ? t : { ...t, root, lastReply };
}

function ThreadRow(props: { store: Store; state: State; thread: MyThread }) {
  const { state, thread: t } = props;
  const root = t.root!;
  const last = t.lastReply;
  const ch = state.channels.get(root.channelId);
  const where = !ch ? "" : ch.kind === ChannelKind.DM ? channelTitle(state, ch) : "#" + ch.name;
  const isNew = threadUnread(state, t);
  const text = (m: { text: string; deleted: boolean; attachments: unknown[] }) =>
    m.deleted ? "This message was deleted." : plainText(m.text, (id) => memberName(state, id)) || (m.attachments.length > 0 ? "sent a file" : "");
  const count = `${root.replyCount} ${root.replyCount === 1 ? "reply" : "replies"}`;
  const label = [nameOf(state, root.authorId) + " in " + (where || "a channel"), count, isNew ? `${t.unreadCount || 1} new` : ""].filter(Boolean).join(", ");
  return (
    <li>
      <a
        class={isNew ? "thread-row thread-row-new" : "thread-row"}
        href={channelHash(root.channelId, { thread: root.id })}
        aria-label={label}
      >
        <span class="thread-row-where">
          {where}
          {isNew && <span class="badge badge-mention thread-row-badge">{t.unreadCount > 0 ? `${t.unreadCount} new` : "new"}</span>}
        </span>
        <span class="thread-row-root">
          <Avatar base={props.store.base} member={state.members.get(root.authorId)} size={24} />
          <span class="thread-row-author">{nameOf(state, root.authorId)}</span>
          <span class="thread-row-text">{text(root)}</span>
        </span>
        {last && (
          <span class="thread-row-last">
            <span class="thread-row-count">{count}</span>
            <span class="thread-row-reply">
              {nameOf(state, last.authorId)}: {text(last)}
            </span>
            <time dateTime={new Date(Number(last.createdAtMs)).toISOString()} title={formatFull(last.createdAtMs)}>
              {formatTime(last.createdAtMs)}
            </time>
          </span>
        )}
      </a>
    </li>
  );
}
