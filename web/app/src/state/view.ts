// A window onto the messages of one channel (or one thread): at most MAX_WINDOW messages are
// held, and so rendered, whatever the channel's size. Scrolling up loads older pages and drops
// the newest ones beyond the window; scrolling down does the reverse; a jump loads the page
// around one message. Live messages are appended only while the window holds the newest ones.
//
// What is new to the person is kept here too, as the message list shows it: readMark, the read
// position when the channel was opened (the "New messages" divider goes before the first
// message of someone else after it, and stays while the channel is open), which follows the
// messages that arrive while the person is looking at the end (watching); and unseen, how many
// arrived while they were not (the count on "Jump to latest").

import type { ListMessagesResponse } from "../gen/svc/v1/chat_pb";
import type { Message } from "../gen/svc/v1/types_pb";
import { errorText, type Api } from "../lib/api";
import { allClaimed, claimed } from "./claims";
import { viewTopic, type ViewTopic } from "./topics";

export const PAGE = 50;
export const MAX_WINDOW = 250;

/** What a window needs of its session (state/session.ts is one). */
export type ViewHost = {
  readonly em: { emit(topic: ViewTopic): void };
  readonly api: { readonly chat: Pick<Api["chat"], "listMessages"> };
  /** The channel's window, for a thread's root it may hold already. */
  view(channelId: string, threadRootId: string, make: false): { readonly messages: readonly Message[] } | undefined;
  /**
   * The signed-in member (whose own messages are never new to them), and the imported members
   * claimed (state/claims.ts: the messages loaded are shown as they will be).
   */
  readonly state: { readonly me?: { readonly id: string }; readonly claims?: ReadonlyMap<string, string> };
};

/** Pages of up to 200 messages read back to find where the unread part starts (jumpToNew). */
const FIND_PAGES = 10;

export class MessageView {
  messages: Message[] = [];
  /** Older messages exist before the first one held. */
  hasBefore = false;
  /** Newer messages exist after the last one held (the window is not at the live end). */
  hasAfter = false;
  loaded = false;
  loading: "" | "initial" | "before" | "after" = "";
  error = "";
  /** The message a jump asked for, highlighted once. */
  target = "";
  /** Bumped when the window is replaced (a jump, a reload), so the list scrolls anew. */
  epoch = 0;
  /** A thread's root message (threads only), kept current by update(). */
  root?: Message;
  /** Where the list puts a new window: at the end, on the target, or on the divider. */
  place: "end" | "target" | "new" = "end";
  /**
   * Messages after this created_seq are new (the divider goes before the first of them that is
   * not the person's own); -1n: no divider (a thread).
   */
  readMark = -1n;
  /**
   * Whether the person sees the end of this window now: asked as a message arrives, of the page
   * as it is then (the message list gives it; nobody sees a window no list shows).
   */
  watching: () => boolean = () => false;
  /** Messages of others that came while the person was not watching the end. */
  unseen = 0;
  /** Bumped by every load, so that an answer to an older one is ignored. */
  private generation = 0;
  /**
   * What the stream brought while the window was loading (new messages, and changes to
   * messages): the answer may have been read before them, so they are applied to it when it
   * comes. A new window's, rather than to the window it replaces; a page's at either end, as it
   * may hold an older copy of a message changed meanwhile, and the last page (scrolling back
   * down to the present) ends before a message sent meanwhile, which the window did not take
   * as it was not at the live end yet.
   */
  private early: { m: Message; fresh: boolean }[] = [];

  constructor(
    private host: ViewHost,
    readonly channelId: string,
    readonly threadRootId = "",
  ) {}

  get topic(): ViewTopic {
    return viewTopic(this.threadRootId || this.channelId);
  }

  private changed() {
    this.host.em.emit(this.topic);
  }

  private async list(req: { beforeId?: string; afterId?: string; aroundId?: string }) {
    const res = await this.host.api.chat.listMessages({
      channelId: this.channelId,
      threadRootId: this.threadRootId,
      limit: PAGE,
      ...req,
    });
    return { ...res, messages: this.claimed(res.messages) };
  }

  private claimed(list: Message[]): Message[] {
    return allClaimed(list, this.host.state?.claims ?? new Map());
  }

  /** An imported member was claimed: the messages held show the member in its place. */
  claim(): void {
    const claims = this.host.state?.claims ?? new Map<string, string>();
    const root = this.root && claimed(this.root, claims);
    const messages = this.claimed(this.messages);
    this.early = this.early.map((e) => ({ ...e, m: claimed(e.m, claims) }));
    if (root === this.root && messages === this.messages) return;
    [this.root, this.messages] = [root, messages];
    this.changed();
  }

  /**
   * Loads the newest page, replacing the window; or, with toNew, the page where the new part
   * starts when it starts before the newest page (the channel opens there, as a person coming
   * back to it reads on from where they were).
   */
  async loadLatest(toNew = false): Promise<void> {
    const gen = ++this.generation;
    this.loading = "initial";
    this.error = "";
    this.changed();
    try {
      let res = await this.list({});
      if (gen !== this.generation) return;
      let place: "end" | "new" = "end";
      const first = res.messages[0];
      if (toNew && this.readMark >= 0n && res.hasMore && first && first.createdSeq > this.readMark) {
        const around = await this.aroundNew(first.id, gen);
        if (gen !== this.generation) return;
        if (around) [res, place] = [around, "new"];
      }
      this.messages = res.messages;
      this.hasBefore = res.hasMore;
      this.hasAfter = place === "new" && res.hasMoreAfter;
      this.target = "";
      this.place = place;
      this.unseen = 0;
      this.loaded = true;
      this.epoch++;
    } catch (e) {
      if (gen === this.generation) this.error = errorText(e);
    } finally {
      this.ended(gen);
    }
  }

  /** Loads the page around a message and marks it as the target. */
  async jump(messageId: string): Promise<void> {
    const gen = ++this.generation;
    this.loading = "initial";
    this.error = "";
    this.changed();
    try {
      const res = await this.list({ aroundId: messageId });
      if (gen !== this.generation) return;
      this.messages = res.messages;
      this.hasBefore = res.hasMore;
      this.hasAfter = res.hasMoreAfter;
      this.target = messageId;
      this.place = "target";
      this.loaded = true;
      this.epoch++;
    } catch (e) {
      if (gen === this.generation) this.error = errorText(e);
    } finally {
      this.ended(gen);
    }
  }

  /** To where the new part starts, when it starts before the window (see aroundNew). */
  async jumpToNew(): Promise<void> {
    if (!this.newBefore() || this.loading === "initial") return;
    const gen = ++this.generation;
    this.loading = "initial";
    this.error = "";
    this.changed();
    try {
      const res = await this.aroundNew(this.messages[0].id, gen);
      if (gen !== this.generation || !res) return;
      this.messages = res.messages;
      this.hasBefore = res.hasMore;
      this.hasAfter = res.hasMoreAfter;
      this.target = "";
      this.place = "new";
      this.epoch++;
    } catch (e) {
      if (gen === this.generation) this.error = errorText(e);
    } finally {
      this.ended(gen);
    }
  }

  /**
   * The page around the first new message before beforeId: pages of 200 are read back until
   * one holds the last message read (at most FIND_PAGES of them: the oldest new message
   * reached then). Undefined when there is none, or a newer load took over.
   */
  private async aroundNew(beforeId: string, gen: number): Promise<ListMessagesResponse | undefined> {
    const me = this.host.state?.me?.id;
    let first = "";
    for (let i = 0; i < FIND_PAGES; i++) {
      const res = await this.host.api.chat.listMessages({ channelId: this.channelId, threadRootId: this.threadRootId, beforeId, limit: 200 });
      if (gen !== this.generation) return undefined;
      const fresh = res.messages.find((m) => m.createdSeq > this.readMark && m.authorId !== me && !m.deleted);
      if (fresh) first = fresh.id;
      if (res.messages.length === 0 || !res.hasMore || res.messages[0].createdSeq <= this.readMark) break;
      beforeId = res.messages[0].id;
    }
    if (!first) return undefined;
    const res = await this.list({ aroundId: first });
    return gen === this.generation ? res : undefined;
  }

  async loadBefore(): Promise<void> {
    if (this.loading || !this.hasBefore || this.messages.length === 0) return;
    const gen = this.generation;
    this.loading = "before";
    this.changed();
    try {
      const res = await this.list({ beforeId: this.messages[0].id });
      if (gen !== this.generation) return;
      const known = new Set(this.messages.map((m) => m.id));
      const older = res.messages.filter((m) => !known.has(m.id));
      let next = [...older, ...this.messages];
      if (next.length > MAX_WINDOW) {
        next = next.slice(0, MAX_WINDOW);
        this.hasAfter = true;
      }
      this.messages = next;
      this.hasBefore = res.hasMore;
    } catch (e) {
      if (gen === this.generation) this.error = errorText(e);
    } finally {
      this.ended(gen);
    }
  }

  async loadAfter(): Promise<void> {
    if (this.loading || !this.hasAfter || this.messages.length === 0) return;
    const gen = this.generation;
    this.loading = "after";
    this.changed();
    try {
      const res = await this.list({ afterId: this.messages[this.messages.length - 1].id });
      if (gen !== this.generation) return;
      const known = new Set(this.messages.map((m) => m.id));
      const newer = res.messages.filter((m) => !known.has(m.id));
      let next = [...this.messages, ...newer];
      if (next.length > MAX_WINDOW) {
        next = next.slice(next.length - MAX_WINDOW);
        this.hasBefore = true;
      }
      this.messages = next;
      this.hasAfter = res.hasMoreAfter;
    } catch (e) {
      if (gen === this.generation) this.error = errorText(e);
    } finally {
      this.ended(gen);
    }
  }

  /**
   * The end of load gen. Unless a newer load has taken over, what came while it loaded is
   * applied: to the new window, or to the one it failed to replace (add and update keep the
   * newer copy; add drops what a window not at the live end, or no window, does not take).
   */
  private ended(gen: number) {
    if (gen === this.generation) {
      this.loading = "";
      const early = this.early;
      this.early = [];
      for (const { m, fresh } of early) {
        if (fresh) this.add(m);
        else this.update(m);
      }
    }
    this.changed();
  }

  /** A message from the stream or a send: appended when the window is at the live end. */
  add(m: Message): void {
    if (this.loading === "initial" || this.loading === "after") {
      this.early.push({ m, fresh: true });
      return;
    }
    const mine = m.authorId === this.host.state?.me?.id;
    const known = this.messages.some((x) => x.id === m.id);
    if (!mine && !known && !m.deleted) {
      // Seen as it comes when the person watches the end and nothing before it is new: the
      // divider stays where the new part began. Else counted for "Jump to latest".
      const watching = this.watching();
      if (watching && !this.hasAfter && this.readMark >= 0n && this.divider() === "") {
        if (m.createdSeq > this.readMark) this.readMark = m.createdSeq;
      } else if (!watching) {
        this.unseen++;
        if (this.hasAfter) this.changed();
      }
    }
    if (!this.loaded || this.hasAfter) return;
    const i = this.messages.findIndex((x) => x.id === m.id);
    if (i >= 0) {
      this.messages = this.messages.slice();
      this.messages[i] = newer(this.messages[i], m);
    } else {
      // Keep the order by created_seq: a send's answer may come after later events.
      let at = this.messages.length;
      while (at > 0 && this.messages[at - 1].createdSeq > m.createdSeq && m.createdSeq > 0n) at--;
      this.messages = [...this.messages.slice(0, at), m, ...this.messages.slice(at)];
      if (this.messages.length > MAX_WINDOW) {
        this.messages = this.messages.slice(this.messages.length - MAX_WINDOW);
        this.hasBefore = true;
      }
    }
    this.changed();
  }

  /**
   * A thread's root, from the channel's window when it holds it, else from the server; false
   * when the thread is gone. A change to the root that comes while it loads (a reply's count,
   * an edit) is kept over the answer's older copy.
   */
  async loadRoot(): Promise<boolean> {
    if (this.root) return true;
    const held = this.host.view(this.channelId, "", false)?.messages.find((m) => m.id === this.threadRootId);
    if (held) {
      this.root = held;
      this.changed();
      return true;
    }
    const res = await this.host.api.chat.listMessages({ channelId: this.channelId, aroundId: this.threadRootId, limit: 1 });
    const got = this.claimed(res.messages).find((m) => m.id === this.threadRootId);
    if (got) this.root = this.root ? newer(this.root, got) : got;
    this.changed();
    return !!this.root;
  }

  /** An edit, a deletion, a reaction or a reply count: replaces the message if held. */
  update(m: Message): void {
    if (this.threadRootId && m.id === this.threadRootId) {
      // The root itself, also before it has loaded (the event is the newer copy).
      this.root = this.root ? newer(this.root, m) : m;
      this.changed();
      return;
    }
    if (this.loading) {
      this.early.push({ m, fresh: false });
      return;
    }
    const i = this.messages.findIndex((x) => x.id === m.id);
    if (i < 0) return;
    this.messages = this.messages.slice();
    this.messages[i] = newer(this.messages[i], m);
    this.changed();
  }

  /**
   * A message changed (an edit, a deletion): the quotes of it in the replies held show it as it
   * now is, as the server would fill them (no event comes for the replies themselves).
   */
  requote(m: Message): void {
    // Cut as the server cuts it: 200 characters (code points).
    const text = m.deleted ? "" : [...m.text].slice(0, 200).join("");
    const quoting = (x: Message) => x.replyTo?.id === m.id && !x.deleted && (x.replyTo.text !== text || x.replyTo.deleted !== m.deleted);
    const requoted = (x: Message): Message => ({ ...x, replyTo: { ...x.replyTo!, text, deleted: m.deleted } });
    let changed = false;
    if (this.root && quoting(this.root)) {
      this.root = requoted(this.root);
      changed = true;
    }
    if (this.messages.some(quoting)) {
      this.messages = this.messages.map((x) => (quoting(x) ? requoted(x) : x));
      changed = true;
    }
    if (changed) this.changed();
  }

  has(id: string): boolean {
    return this.messages.some((m) => m.id === id);
  }

  /** The first new message of the window (see readMark), "" when none is. */
  divider(): string {
    if (this.readMark < 0n || this.newBefore()) return "";
    const me = this.host.state?.me?.id;
    return this.messages.find((m) => m.createdSeq > this.readMark && m.authorId !== me && !m.deleted)?.id ?? "";
  }

  /** The new part starts before the window (its first message is new, and older ones exist). */
  newBefore(): boolean {
    return this.readMark >= 0n && this.hasBefore && this.messages.length > 0 && this.messages[0].createdSeq > this.readMark;
  }

  /**
   * The channel opened again (from the sidebar, a notification): the newest messages, at the
   * end, new after readMark. A window left on a jump's message, or away from the end, goes.
   */
  reopen(readMark: bigint): void {
    this.readMark = readMark;
    this.unseen = 0;
    if (this.loading === "initial") return;
    if (!this.loaded || this.hasAfter) void this.loadLatest(true);
    else if (this.newBefore()) void this.jumpToNew();
    else if (this.target) this.toLatest();
  }

  /** Back to the newest messages, at the end (the person sent one, or asked to). */
  toLatest(): void {
    this.unseen = 0;
    if (this.loading === "initial") return;
    if (!this.loaded || this.hasAfter) {
      void this.loadLatest();
      return;
    }
    this.target = "";
    this.place = "end";
    this.epoch++;
    this.changed();
  }


  /** Scrolls to a message the window holds and highlights it, as a jump does. */
  highlight(id: string): void {
    this.target = id;
    this.place = "target";
    this.epoch++;
    this.changed();
  }
}

/** The later of two copies of a message (events can arrive after a call's answer). */
function newer(a: Message, b: Message): Message {
  // A deletion is final, so a deleted copy wins over one that is not, whatever their seqs:
  // the person's own delete is shown from the answer (a copy of what they had, its seq old)
  // before its event, and an edit's or reaction's event arriving after does not bring it back.
  if (a.deleted !== b.deleted) return a.deleted ? a : b;
  return b.seq >= a.seq ? b : a;
}
