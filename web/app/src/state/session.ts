// One signed-in connection to one Hearth: the community as GetState gave it, kept current by
// the Subscribe stream. The stream starts from GetState's seq, reconnects with after_seq (so
// nothing is lost or seen twice) and a growing delay, and on `resync` the state is loaded
// again. Messages are sent from a queue (outbox.ts) that keeps each one's client_id across
// retries and reloads, so a retry never makes a second message; what the person is told is in
// notices.ts.

import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import type { Event } from "../gen/svc/v1/events_pb";
import type { GetServerInfoResponse } from "../gen/svc/v1/server_pb";
import {
  ChannelKind,
  ChannelMode,
  Presence,
  ReadStateSchema,
  type Channel,
  type LinkPreview,
  type Member,
  type Message,
  type ReadState,
  type Role,
} from "../gen/svc/v1/types_pb";
import { codeOf, errorText, fetchEmoji, makeApi, type Api } from "../lib/api";
import { Emitter } from "../lib/emitter";
import type { Topic } from "./topics";
import { mentions, plainText } from "../lib/markdown";
import { accessToken } from "../lib/oidc";
import { getCreds, getToken } from "../lib/storage";
import type { SentFile } from "./drafts";
import { NoticeBoard, type Notice, type NoticeKind } from "./notices";
import { Outbox, type Pending } from "./outbox";
import { MessageView } from "./view";

export type { Notice, NoticeKind } from "./notices";
export type { Pending } from "./outbox";

export type Status = "loading" | "ready" | "signed-out" | "needs-join" | "unreachable";

type Typist = { until: number; thread: string };

/** Previews belong to a message as edited: an edit may change its links. */
export function previewKey(m: Message): string {
  return m.id + "/" + m.editedAtMs;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Session {
  readonly em = new Emitter<Topic>();
  readonly api: Api;

  status: Status = "loading";
  statusText = "";
  /** The event stream is open. */
  online = false;
  /** The person was a member in this session and is no longer (kicked, banned, left elsewhere). */
  removed = false;
  info?: GetServerInfoResponse;
  me?: Member;
  members = new Map<string, Member>();
  channels = new Map<string, Channel>();
  roles: Role[] = [];
  mode = ChannelMode.ROLES;
  reads = new Map<string, ReadState>();
  muted = new Set<string>();
  blocked = new Set<string>();
  emoji = new Map<string, string>();
  /** Link previews by message and edit (previewKey). */
  previews = new Map<string, LinkPreview[]>();
  typing = new Map<string, Map<string, Typist>>();
  /** The messages on their way. */
  private readonly outbox: Outbox;
  private readonly noticeBoard = new NoticeBoard(() => this.em.emit("notices"));
  /** The channel on screen (for notifications). */
  viewing = "";
  /** Opens a message when its notification is clicked. */
  onOpenMessage?: (channelId: string, messageId: string) => void;

  private seq = 0n;
  private views = new Map<string, MessageView>();
  private closed = false;
  private abort?: AbortController;
  private reloadTimer = 0;
  private typingSent = new Map<string, number>();
  private previewsAsked = new Set<string>();
  private lastReauth = 0;
  private readsInFlight = new Map<string, bigint>();
  /** Bumped by every GetState, so that only the newest answer replaces the state. */
  private stateGeneration = 0;
  /**
   * What the stream brought while GetState was on its way (after a change of channel mode, the
   * stream stays open): applied to the answer when it comes, those it already holds left out,
   * rather than to the state it is about to replace.
   */
  private early?: Event[];

  constructor(readonly base: string) {
    this.api = makeApi(base, () => accessToken(base));
    this.outbox = new Outbox({
      base,
      api: this.api,
      em: this.em,
      me: () => this.me?.id,
      ready: () => this.status === "ready" && !this.closed,
      closed: () => this.closed,
      shown: (m) => this.view(m.channelId, m.threadRootId, false)?.add(m),
      reauthorized: (e) => this.reauthorized(e),
      failed: (e) => this.failed(e),
    });
  }

  /** The messages on their way, in the order they go. */
  get pending(): Pending[] {
    return this.outbox.pending;
  }

  /** What the person is told (ui/common.tsx, Notices), oldest first. */
  get notices(): Notice[] {
    return this.noticeBoard.list;
  }

  // ---- lifecycle ----

  async start(): Promise<void> {
    try {
      this.info = (await this.api.server.getServerInfo({})) as GetServerInfoResponse;
    } catch (e) {
      this.setStatus("unreachable", errorText(e));
      return;
    }
    this.em.emit("info");
    if (!getToken(this.base)) {
      this.setStatus("signed-out", "");
      return;
    }
    if (!(await this.loadState())) return;
    this.refreshEmoji();
    void this.loop();
    void this.outbox.flush();
  }

  close(): void {
    this.closed = true;
    this.abort?.abort();
    this.outbox.stop();
  }

  private setStatus(s: Status, text: string) {
    this.status = s;
    this.statusText = text;
    this.em.emit("status");
  }

  /** GetState, replacing what is known; false when the person cannot use the community. */
  private async loadState(retried = false): Promise<boolean> {
    const gen = ++this.stateGeneration;
    this.early ??= [];
    try {
      const st = await this.api.chat.getState({});
      if (gen !== this.stateGeneration) return true;
      this.me = st.me;
      this.members = new Map(st.members.map((m) => [m.id, m]));
      if (st.me) this.members.set(st.me.id, st.me);
      this.channels = new Map(st.channels.map((c) => [c.id, c]));
      this.roles = st.roles;
      this.mode = st.channelMode;
      this.reads = new Map(st.readStates.map((r) => [r.channelId, r]));
      this.muted = new Set(st.mutedMemberIds);
      this.blocked = new Set(st.blockedMemberIds);
      this.seq = st.seq;
      this.setStatus("ready", "");
      this.em.emit("channels", "members", "me");
      // Views may have missed anything: load them again from the newest messages.
      for (const v of this.views.values()) if (v.loaded) void v.loadLatest();
      // Then what came meanwhile and the answer does not hold (ephemeral events have no seq).
      for (const ev of this.takeEarly()) if (ev.seq === 0n || ev.seq > st.seq) this.apply(ev);
      return true;
    } catch (e) {
      if (!retried && (await this.reauthorized(e))) return this.loadState(true);
      if (gen === this.stateGeneration) for (const ev of this.takeEarly()) this.apply(ev);
      this.failed(e);
      return false;
    }
  }

  /** loadState once, a moment from now: several events asking for it make one call. */
  private reloadStateSoon(): void {
    if (this.reloadTimer) return;
    this.reloadTimer = window.setTimeout(() => {
      this.reloadTimer = 0;
      if (!this.closed) void this.loadState();
    }, 500);
  }

  private takeEarly(): Event[] {
    const early = this.early ?? [];
    this.early = undefined;
    return early;
  }

  /** An event from the stream: applied, or kept while GetState is on its way. */
  private received(ev: Event): void {
    // What GetState's answer already holds, if the stream brings it after the answer.
    if (ev.seq !== 0n && ev.seq <= this.seq) return;
    if (!this.early) return this.apply(ev);
    this.early.push(ev);
    // A stream that breaks meanwhile resumes after what is kept, not with it again.
    if (ev.seq > this.seq) this.seq = ev.seq;
  }

  /**
   * After an unauthenticated answer: true when a refresh brought a new access token. At most
   * one forced refresh every 30 s, so a server that refuses every token cannot make a loop of
   * refreshes.
   */
  private async reauthorized(e: unknown): Promise<boolean> {
    const before = getCreds(this.base);
    if (codeOf(e) !== Code.Unauthenticated || !before?.refresh) return false;
    if (Date.now() - this.lastReauth < 30_000) return false;
    this.lastReauth = Date.now();
    const after = await accessToken(this.base, true);
    return !!after && after !== before.access;
  }

  /** Moves to the screen a call's failure calls for; true when it did. */
  private failed(e: unknown): boolean {
    const code = codeOf(e);
    if (code === Code.Unauthenticated) {
      this.setStatus("signed-out", errorText(e));
      return true;
    }
    if (code === Code.PermissionDenied) {
      if (this.status === "ready") this.removed = true;
      this.setStatus("needs-join", errorText(e));
      return true;
    }
    if (this.status === "loading") this.setStatus("unreachable", errorText(e));
    return false;
  }

  /** The event stream, for as long as the session lives. */
  private async loop(): Promise<void> {
    let delay = 0;
    let resync = false;
    while (!this.closed) {
      if (delay) await sleep(delay + Math.random() * delay * 0.3);
      if (this.closed) return;
      const ac = new AbortController();
      this.abort = ac;
      // Heartbeats come every 25 s: a stream silent for longer than two is dead.
      let watchdog = 0;
      const kick = () => {
        clearTimeout(watchdog);
        watchdog = window.setTimeout(() => ac.abort(), 60_000);
      };
      // The access token the stream opens with: the server ends the stream when it expires.
      let opened: string | undefined;
      try {
        if (resync) {
          if (!(await this.loadState())) return;
          resync = false;
        }
        kick();
        opened = await this.api.token();
        for await (const ev of this.api.chat.subscribe({ afterSeq: this.seq }, { signal: ac.signal })) {
          kick();
          if (!this.online) {
            this.online = true;
            delay = 0;
            this.em.emit("status");
            void this.outbox.flush();
          }
          if (ev.kind.case === "resync") {
            resync = true;
            break;
          }
          this.received(ev);
        }
      } catch (e) {
        if (this.closed) return;
        const code = codeOf(e);
        // The stream outlived its access token (the server ends it when the token expires,
        // while the calls meanwhile may have refreshed it already): subscribe again at once
        // from the last seq with the token there is now, refreshed first if it expires soon,
        // and nothing to tell the person. Only with another token than the stream's, so a
        // server that refuses every token makes no loop.
        if (code === Code.Unauthenticated && opened) {
          const now = await this.api.token();
          if (now && now !== opened) continue;
        }
        if (await this.reauthorized(e)) continue;
        if (code === Code.Unauthenticated || code === Code.PermissionDenied) {
          this.failed(e);
          return;
        }
      } finally {
        clearTimeout(watchdog);
      }
      if (this.online) {
        this.online = false;
        this.em.emit("status");
      }
      delay = resync ? 0 : delay ? Math.min(delay * 2, 30_000) : 500;
    }
  }

  // ---- events ----

  private apply(ev: Event): void {
    const k = ev.kind;
    switch (k.case) {
      case "messageCreated":
        this.messageCreated(k.value, ev.seq);
        break;
      case "messageUpdated":
      case "messageDeleted":
        this.messageChanged(k.value);
        break;
      case "channelCreated":
      case "channelUpdated":
        if (this.mode === ChannelMode.OPT_IN && k.value.kind === ChannelKind.TEXT && !this.channels.has(k.value.id)) {
          // In OPT_IN mode a text channel's events reach everyone who sees it, joined or not,
          // and nothing in them says which: one the person joined elsewhere (another device,
          // or a channel they made there) and one they only see look alike. The state lists
          // the joined ones.
          this.reloadStateSoon();
          break;
        }
        this.channels.set(k.value.id, k.value);
        this.em.emit("channels");
        break;
      case "channelDeleted":
        this.channels.delete(k.value);
        this.em.emit("channels");
        break;
      case "memberJoined":
      case "memberUpdated":
        this.memberChanged(k.value);
        break;
      case "memberLeft": {
        this.members.delete(k.value);
        this.em.emit("members");
        break;
      }
      case "readState":
        this.reads.set(k.value.channelId, k.value);
        this.em.emit("channels");
        break;
      case "typing":
        this.typingEvent(k.value.channelId, k.value.memberId, k.value.threadRootId);
        break;
      case "presence":
        this.presence(k.value.memberId, k.value.presence);
        this.em.emit("members");
        break;
      case "presenceBatch":
        k.value.changes.forEach((c) => this.presence(c.memberId, c.presence));
        this.em.emit("members");
        break;
      case "roleUpdated": {
        const roles = this.roles.filter((r) => r.id !== k.value.id);
        roles.push(k.value);
        this.roles = roles.sort((a, b) => a.position - b.position);
        this.em.emit("members");
        break;
      }
      case "roleDeleted":
        this.roles = this.roles.filter((r) => r.id !== k.value);
        this.em.emit("members");
        break;
      case "channelModeChanged":
        // Which channels each member is in may have changed: load the state again.
        this.mode = k.value;
        void this.loadState();
        break;
      case "serverUpdated":
        this.refreshInfo();
        break;
      case "emojiChanged":
        this.refreshEmoji();
        break;
      case "pluginsChanged":
        this.em.emit("plugins");
        break;
      case "memberBlocked":
        this.blocked.add(k.value);
        this.em.emit("members");
        break;
      case "memberUnblocked":
        this.blocked.delete(k.value);
        this.em.emit("members");
        break;
      case "memberMuted":
        this.muted.add(k.value);
        this.em.emit("members");
        break;
      case "memberUnmuted":
        this.muted.delete(k.value);
        this.em.emit("members");
        break;
    }
    if (ev.seq > this.seq) this.seq = ev.seq;
  }

  private messageCreated(m: Message, seq: bigint): void {
    const ch = this.channels.get(m.channelId);
    if (ch && seq > ch.lastMessageSeq) ch.lastMessageSeq = seq;
    const me = this.me?.id ?? "";
    if (m.authorId === me) {
      // Sent from here or another device: what came before it is read.
      const rs = this.readState(m.channelId);
      if (m.createdSeq > rs.lastReadSeq) this.reads.set(m.channelId, { ...rs, lastReadSeq: m.createdSeq, unreadCount: 0, mentionCount: 0 });
      this.outbox.arrived(m.clientId);
    } else if (!this.muted.has(m.authorId) && !this.blocked.has(m.authorId)) {
      const rs = this.readState(m.channelId);
      if (m.createdSeq > rs.lastReadSeq) {
        const mentioned = mentions(m.text, me) || ch?.kind === ChannelKind.DM;
        this.reads.set(m.channelId, {
          ...rs,
          unreadCount: rs.unreadCount + (m.threadRootId ? 0 : 1),
          mentionCount: rs.mentionCount + (mentioned ? 1 : 0),
        });
        if (mentioned) this.notify(m);
      }
    }
    this.stopTyping(m.channelId, m.authorId);
    this.view(m.channelId, m.threadRootId, false)?.add(m);
    this.em.emit("channels");
  }

  private messageChanged(m: Message): void {
    this.view(m.channelId, "", false)?.update(m);
    this.view(m.channelId, m.threadRootId || m.id, false)?.update(m);
  }

  private memberChanged(m: Member): void {
    const old = this.members.get(m.id);
    // Logged member events carry no presence: keep the live one.
    if (old && m.presence === Presence.UNSPECIFIED) m = { ...m, presence: old.presence };
    this.members.set(m.id, m);
    if (m.id === this.me?.id) {
      this.me = m;
      this.em.emit("me");
    }
    this.em.emit("members");
  }

  private presence(id: string, p: Presence): void {
    const m = this.members.get(id);
    if (m) this.members.set(id, { ...m, presence: p });
    if (this.me && id === this.me.id) this.me = { ...this.me, presence: p };
  }

  private typingEvent(channelId: string, memberId: string, thread: string): void {
    if (memberId === this.me?.id) return;
    let map = this.typing.get(channelId);
    if (!map) this.typing.set(channelId, (map = new Map()));
    map.set(memberId, { until: Date.now() + 6000, thread });
    this.em.emit("typing");
    setTimeout(() => {
      const t = this.typing.get(channelId)?.get(memberId);
      if (t && t.until <= Date.now()) this.stopTyping(channelId, memberId);
    }, 6100);
  }

  private stopTyping(channelId: string, memberId: string): void {
    if (this.typing.get(channelId)?.delete(memberId)) this.em.emit("typing");
  }

  /** Who is typing in a channel (or one of its threads), by name. */
  typists(channelId: string, thread = ""): string[] {
    const out: string[] = [];
    this.typing.get(channelId)?.forEach((t, id) => {
      if (t.thread === thread && t.until > Date.now()) out.push(this.nameOf(id));
    });
    return out;
  }

  private notify(m: Message): void {
    if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
    if (this.viewing === m.channelId && document.hasFocus()) return;
    const ch = this.channels.get(m.channelId);
    const where = ch && ch.kind !== ChannelKind.DM ? " in #" + ch.name : "";
    const body = [...plainText(m.text, (id) => (this.members.has(id) ? this.nameOf(id) : undefined))].slice(0, 200).join("");
    const n = new Notification(this.nameOf(m.authorId) + where, { body: body || "sent a file", tag: m.id });
    n.onclick = () => {
      window.focus();
      this.onOpenMessage?.(m.channelId, m.threadRootId || m.id);
      n.close();
    };
  }

  // Two changes close together (emoji deleted one after another, settings saved in a row) make
  // two loads of the list or the card: only the newest one's answer is kept, as the other may
  // come last and was read before the second change.
  private emojiGeneration = 0;
  private infoGeneration = 0;

  private refreshEmoji(): void {
    const gen = ++this.emojiGeneration;
    fetchEmoji(this.api)
      .then((e) => {
        if (gen !== this.emojiGeneration) return;
        this.emoji = e;
        this.em.emit("emoji");
      })
      .catch(() => undefined);
  }

  private refreshInfo(): void {
    const gen = ++this.infoGeneration;
    this.api.server
      .getServerInfo({})
      .then((info) => {
        if (gen !== this.infoGeneration) return;
        this.info = info as GetServerInfoResponse;
        this.em.emit("info");
      })
      .catch(() => undefined);
  }

  // ---- reading ----

  /** Asks once for the previews of a message's links (again after an edit). */
  loadPreviews(m: Message): void {
    const key = previewKey(m);
    if (this.previewsAsked.has(key)) return;
    this.previewsAsked.add(key);
    this.api.chat
      .getLinkPreviews({ messageId: m.id })
      .then((res) => {
        if (res.previews.length === 0) return;
        this.previews.set(key, res.previews);
        this.em.emit("previews");
      })
      .catch(() => this.previewsAsked.delete(key));
  }

  readState(channelId: string): ReadState {
    return this.reads.get(channelId) ?? create(ReadStateSchema, { channelId });
  }

  /** The window onto a channel's (or a thread's) messages; create makes it if needed. */
  view(channelId: string, threadRootId: string, make: true): MessageView;
  view(channelId: string, threadRootId: string, make: boolean): MessageView | undefined;
  view(channelId: string, threadRootId: string, make: boolean): MessageView | undefined {
    const key = threadRootId ? "t:" + threadRootId : "c:" + channelId;
    let v = this.views.get(key);
    if (!v && make) {
      v = new MessageView(this, channelId, threadRootId);
      this.views.set(key, v);
    }
    return v;
  }

  /** Marks a channel read up to its newest message, once per new message. */
  markRead(channelId: string): void {
    const ch = this.channels.get(channelId);
    if (!ch || this.status !== "ready") return;
    const rs = this.readState(channelId);
    const seq = ch.lastMessageSeq;
    if (seq <= rs.lastReadSeq && rs.unreadCount === 0 && rs.mentionCount === 0) return;
    if ((this.readsInFlight.get(channelId) ?? -1n) >= seq) return;
    this.readsInFlight.set(channelId, seq);
    const marked = { ...rs, lastReadSeq: seq > rs.lastReadSeq ? seq : rs.lastReadSeq, unreadCount: 0, mentionCount: 0 };
    this.reads.set(channelId, marked);
    this.em.emit("channels");
    this.api.chat
      .markRead({ channelId, seq })
      .then((res) => {
        // The answer counts what was unread when the server marked it. The stream brings the
        // same read state, in order with the messages after it: once it or one of them has
        // changed the read state here, the answer is older than what is shown (a message that
        // came meanwhile would lose its unread count).
        const now = this.reads.get(channelId);
        if (now !== marked) return;
        if (res.readState && res.readState.lastReadSeq >= marked.lastReadSeq) {
          this.reads.set(channelId, res.readState);
          this.em.emit("channels");
        }
      })
      .catch(() => undefined)
      .finally(() => this.readsInFlight.delete(channelId));
  }

  nameOf(id: string): string {
    const m = this.members.get(id);
    return m ? m.displayName || m.username : "someone who left";
  }

  idOfUsername(username: string): string | undefined {
    for (const m of this.members.values()) if (m.username === username) return m.id;
    return undefined;
  }

  /** A channel's name as the sidebar shows it: #name, or the other members of a DM. */
  channelTitle(c: Channel): string {
    if (c.kind !== ChannelKind.DM) return c.name;
    const others = c.memberIds.filter((id) => id !== this.me?.id);
    if (others.length === 0) return this.nameOf(this.me?.id ?? "") + " (you)";
    return others.map((id) => this.nameOf(id)).join(", ");
  }

  // ---- writing ----

  /** Tells the person something (see NoticeBoard.tell). */
  tell(text: string, kind: NoticeKind): void {
    this.noticeBoard.tell(text, kind);
  }

  /** Takes a notice away (nothing when it has gone already). */
  dismiss(id: number): void {
    this.noticeBoard.dismiss(id);
  }

  /** Queues a message; it shows at once and goes when the server can take it. */
  send(channelId: string, threadRootId: string, text: string, attachments: SentFile[]): void {
    this.outbox.send(channelId, threadRootId, text, attachments);
  }

  /** Whether a queued message is the signed-in member's. */
  mine(p: Pending): boolean {
    return this.outbox.mine(p);
  }

  retryPending(p: Pending): void {
    this.outbox.retry(p);
  }

  dropPending(p: Pending): void {
    this.outbox.drop(p);
  }

  /** At a sign-out: the queue goes, and a send still on its way does not write it back. */
  forgetPending(): void {
    this.close();
    this.outbox.forget();
  }

  /** Tells the others the person is typing, at most every 3 seconds per channel. */
  typingNow(channelId: string, threadRootId: string): void {
    const key = channelId + "/" + threadRootId;
    const now = Date.now();
    if ((this.typingSent.get(key) ?? 0) > now - 3000) return;
    this.typingSent.set(key, now);
    this.api.chat.setTyping({ channelId, threadRootId }).catch(() => undefined);
  }

  /** Runs a call, shows its result in the views it touches, and tells the person when it fails. */
  async run<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (e) {
      this.tell(`${what}: ${errorText(e)}`, "error");
      return undefined;
    }
  }

  async edit(m: Message, text: string): Promise<boolean> {
    const res = await this.run("Could not edit the message", () => this.api.chat.editMessage({ messageId: m.id, text }));
    if (res?.message) this.messageChanged(res.message);
    return !!res;
  }

  async remove(m: Message): Promise<void> {
    const res = await this.run("Could not delete the message", () => this.api.chat.deleteMessage({ messageId: m.id }));
    // The answer says it is gone: show it so now, as an edit's answer shows the edit, rather
    // than wait for its event, which a slow or reconnecting stream brings late.
    if (res) this.messageChanged({ ...m, deleted: true, text: "", attachments: [], reactions: [] });
  }

  async react(m: Message, emoji: string): Promise<void> {
    const mine = m.reactions.find((r) => r.emoji === emoji)?.memberIds.includes(this.me?.id ?? "");
    const res = await this.run("Could not react", () => this.api.chat.react({ messageId: m.id, emoji, remove: !!mine }));
    if (res?.message) this.messageChanged(res.message);
  }

  /** Opens (or finds) the DM with these members and returns its id. */
  async openDM(memberIds: string[]): Promise<string | undefined> {
    const res = await this.run("Could not open the conversation", () => this.api.chat.openDM({ memberIds }));
    if (!res?.channel) return undefined;
    this.channels.set(res.channel.id, res.channel);
    this.em.emit("channels");
    return res.channel.id;
  }

  async joinChannel(channelId: string): Promise<boolean> {
    const res = await this.run("Could not join the channel", () => this.api.chat.joinChannel({ channelId }));
    if (!res?.channel) return false;
    this.channels.set(res.channel.id, res.channel);
    this.em.emit("channels");
    return true;
  }

  async leaveChannel(channelId: string): Promise<void> {
    const res = await this.run("Could not leave the channel", () => this.api.chat.leaveChannel({ channelId }));
    if (res) {
      this.channels.delete(channelId);
      this.em.emit("channels");
    }
  }

  async setAway(away: boolean): Promise<void> {
    await this.run("Could not change your presence", () =>
      this.api.chat.setPresence({ presence: away ? Presence.AWAY : Presence.ONLINE }),
    );
  }

  async toggleMute(id: string): Promise<void> {
    const on = this.muted.has(id);
    const res = await this.run<unknown>("Could not change the mute", () =>
      on ? this.api.server.unmuteMember({ memberId: id }) : this.api.server.muteMember({ memberId: id }),
    );
    if (res) {
      if (on) this.muted.delete(id);
      else this.muted.add(id);
      this.em.emit("members");
    }
  }

  async toggleBlock(id: string): Promise<void> {
    const on = this.blocked.has(id);
    const res = await this.run<unknown>("Could not change the block", () =>
      on ? this.api.server.unblockMember({ memberId: id }) : this.api.server.blockMember({ memberId: id }),
    );
    if (res) {
      if (on) this.blocked.delete(id);
      else this.blocked.add(id);
      this.em.emit("members");
    }
  }

  /** Called after Join: loads the community and opens the stream. */
  async joined(): Promise<boolean> {
    this.removed = false;
    this.setStatus("loading", "");
    if (!(await this.loadState())) return false;
    this.refreshEmoji();
    void this.loop();
    void this.outbox.flush();
    return true;
  }
}
