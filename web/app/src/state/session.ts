// One signed-in connection to one Hearth: the community as GetState gave it, kept current by the
// event stream (GET /events, a WebSocket; Subscribe where that cannot open). The stream starts
// from GetState's seq, reconnects with after_seq (so nothing is lost or seen twice) and a
// growing delay, and on `resync` the state is loaded again. Messages are sent from a queue
// (outbox.ts) that keeps each one's client_id across retries and reloads, so a retry never makes
// a second message; what the person is told is in notices.ts.
//
// The Session is the Store the screens read (store.ts) and holds the Commands they call
// (commands.ts, as `act`); the events and the commands' answers change the State only through
// the reducer (reducer.ts), for which the Session carries out the Effects.

import { Code } from "@connectrpc/connect";
import type { Event } from "../gen/svc/v1/events_pb";
import type { GetServerInfoResponse } from "../gen/svc/v1/server_pb";
import { create } from "@bufbuild/protobuf";
import { ChannelKind, PresenceBatchSchema, type Message, type VoiceState } from "../gen/svc/v1/types_pb";
import { codeOf, errorText, fetchEmoji, makeApi, type Api } from "../lib/api";
import { NeverOpened, websocketEvents } from "../lib/events";
import { Emitter } from "../lib/emitter";
import { plainText } from "../lib/markdown";
import { fromWire } from "../lib/markdown";
import { channelHash } from "../lib/router";
import { accessToken } from "../lib/oidc";
import { getCreds, getToken } from "../lib/storage";
import { Commands } from "./commands";
import { draftKey, restoreDraft } from "./drafts";
import { NoticeBoard, type Notice } from "./notices";
import { Outbox, type Pending } from "./outbox";
import { PushDevice, type PushState } from "./push";
import { reduce, TYPING_MS, type Action, type Effects } from "./reducer";
import { memberName, nameOf } from "./selectors";
import { emptyState, type State, type Status, type Store } from "./store";
import type { Topic } from "./topics";
import { MessageView } from "./view";

export class Session implements Store, Effects {
  readonly em = new Emitter<Topic>();
  readonly api: Api;
  /** What the person does: every change to the State goes through these. */
  readonly act: Commands;

  /** The State, as the reducer alone writes it. */
  private readonly data = emptyState();
  /** The messages on their way. */
  private readonly outbox: Outbox;
  private readonly noticeBoard = new NoticeBoard(() => this.em.emit("notices"));
  /** This device's push subscription. */
  private readonly pushDevice: PushDevice;
  /** The channel on screen (for notifications). */
  private viewing = "";
  /** Opens a message when its notification is clicked. */
  private onOpenMessage?: (channelId: string, messageId: string) => void;

  private seq = 0n;
  private views = new Map<string, MessageView>();
  /** The stream has been open in this session (a reconnect, not the first open, follows). */
  private everOnline = false;
  /** Ends the wait before the next attempt to reconnect (reconnectNow). */
  private wake?: () => void;
  private closed = false;
  private abort?: AbortController;
  private reloadTimer = 0;
  private lastReauth = 0;
  /** Bumped by every GetState, so that only the newest answer replaces the state. */
  private stateGeneration = 0;
  /**
   * What the stream brought while GetState was on its way (after a change of channel mode, the
   * stream stays open): applied to the answer when it comes, those it already holds left out,
   * rather than to the state it is about to replace.
   */
  private early?: Event[];
  /** The voice_state events that came while ListVoiceStates was on its way (refreshVoice). */
  private voiceHeld?: VoiceState[];
  private voiceAgain = false;

  constructor(readonly base: string) {
    this.api = makeApi(
      base,
      () => accessToken(base),
      (full) => this.diskFull(full),
    );
    this.outbox = new Outbox({
      base,
      api: this.api,
      em: this.em,
      me: () => this.data.me?.id,
      ready: () => this.data.status === "ready" && !this.closed,
      closed: () => this.closed,
      shown: (m) => {
        this.view(m.channelId, m.threadRootId, false)?.add(m);
        this.dispatch({ case: "sent", value: m });
      },
      reauthorized: (e) => this.reauthorized(e),
      failed: (e) => this.failed(e),
      waited: (channelId, ms) => this.dispatch({ case: "slowmodeWait", value: { channelId, ms } }),
      refused: (p, why) => this.refused(p, why),
    });
    this.pushDevice = new PushDevice({ base, api: this.api, em: this.em, me: () => this.data.me?.id });
    const session = this;
    this.act = new Commands({
      get api() {
        return session.api;
      },
      get state() {
        return session.state;
      },
      dispatch: (a) => this.dispatch(a),
      outbox: this.outbox,
      notices: this.noticeBoard,
      push: this.pushDevice,
      joined: () => this.joined(),
      showing: (channelId, open) => {
        this.viewing = channelId;
        this.onOpenMessage = open;
      },
      toLatest: (channelId, threadRootId) => this.view(channelId, threadRootId, false)?.toLatest(),
      reconnectNow: () => this.wake?.(),
    });
  }

  /** The community as known now; read-only (changed by the reducer alone). */
  get state(): State {
    return this.data;
  }

  /** The messages on their way, in the order they go. */
  get pending(): Pending[] {
    return this.outbox.pending;
  }

  /** What the person is told (ui/common.tsx, Notices), oldest first. */
  get notices(): Notice[] {
    return this.noticeBoard.list;
  }

  get push(): PushState {
    return this.pushDevice.state;
  }

  /** The window onto a channel's (or a thread's) messages; make creates it if needed. */
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

  // ---- lifecycle ----

  async start(): Promise<void> {
    try {
      this.dispatch({ case: "info", value: (await this.api.server.getServerInfo({})) as GetServerInfoResponse });
    } catch (e) {
      this.setStatus("unreachable", errorText(e));
      return;
    }
    if (!getToken(this.base)) {
      this.setStatus("signed-out", "");
      return;
    }
    if (!(await this.loadState())) return;
    this.refreshEmoji();
    void this.loop();
    void this.outbox.flush();
    void this.pushDevice.sync();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.muteTimer);
    clearInterval(this.diskTimer);
    this.abort?.abort();
    this.outbox.stop();
    this.act.voice.close();
  }

  /** At a sign-out: the queue goes, and a send still on its way does not write it back. */
  forgetPending(): void {
    this.close();
    this.outbox.forget();
  }

  /** At a sign-out, before the tokens go: this device no longer gets the person's pushes. */
  forgetDevice(): Promise<void> {
    return this.pushDevice.forget();
  }

  /** Called after Join: loads the community and opens the stream. */
  async joined(): Promise<boolean> {
    this.setStatus("loading", "", false);
    if (!(await this.loadState())) return false;
    this.refreshEmoji();
    void this.loop();
    void this.outbox.flush();
    void this.pushDevice.sync();
    return true;
  }

  private setStatus(status: Status, text: string, removed?: boolean) {
    this.dispatch({ case: "status", value: { status, text, removed } });
  }

  /** GetState, replacing what is known; false when the person cannot use the community. */
  private async loadState(retried = false): Promise<boolean> {
    const gen = ++this.stateGeneration;
    this.early ??= [];
    try {
      const st = await this.api.chat.getState({});
      if (gen !== this.stateGeneration) return true;
      this.dispatch({ case: "loaded", value: st });
      this.seq = st.seq;
      this.loadPrefs();
      this.setStatus("ready", "");
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
      this.setStatus("needs-join", errorText(e), this.data.status === "ready" || undefined);
      return true;
    }
    if (this.data.status === "loading") this.setStatus("unreachable", errorText(e));
    return false;
  }

  /** The event stream, for as long as the session lives. */
  private async loop(): Promise<void> {
    let delay = 0;
    let resync = false;
    while (!this.closed) {
      if (delay) await this.pause(delay + Math.random() * delay * 0.3);
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
        for await (const ev of this.events(opened, ac.signal)) {
          kick();
          if (!this.data.online) {
            this.dispatch({ case: "online", value: true });
            delay = 0;
            void this.outbox.flush();
            // Presence is not replayed: what changed while the stream was down is asked for.
            if (this.everOnline) this.refreshPresence();
            this.everOnline = true;
            // Voice states are not replayed: who joined or left while no stream was open.
            this.reloadVoice();
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
        // The stream outlived its access token (the server ends the stream when the token expires,
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
      if (this.data.online) this.dispatch({ case: "online", value: false });
      delay = resync ? 0 : delay ? Math.min(delay * 2, 30_000) : 500;
    }
  }

  /**
   * The live events after this.seq: over the WebSocket (GET /events, lib/events.ts), which
   * costs the server about half what Subscribe over HTTP/2 does; over Subscribe where the
   * WebSocket does not open (a proxy that does not pass the upgrade), until the stream ends.
   * Every reconnect tries the WebSocket first again, so that a page that once could not open
   * it is not kept on Subscribe for the rest of its session; behind such a proxy that costs
   * one refused upgrade per reconnect.
   */
  private async *events(token: string | undefined, signal: AbortSignal): AsyncGenerator<Event> {
    if (token && typeof WebSocket !== "undefined") {
      try {
        yield* websocketEvents(this.base, token, this.seq, signal);
        return;
      } catch (e) {
        if (!(e instanceof NeverOpened)) throw e;
      }
    }
    yield* this.api.chat.subscribe({ afterSeq: this.seq }, { signal });
  }

  /** Waits ms before the next attempt to reconnect, or less if the person asks (wake). */
  private pause(ms: number): Promise<void> {
    return new Promise((done) => {
      const timer = setTimeout(done, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        done();
      };
    });
  }

  /** Everyone's presence as it is now, after the stream was down (given as the stream would). */
  private refreshPresence(): void {
    this.api.server
      .listMembers({})
      .then((res) => {
        const changes = res.members.map((m) => ({ memberId: m.id, presence: m.presence }));
        this.dispatch({ case: "presenceBatch", value: create(PresenceBatchSchema, { changes }) });
      })
      .catch(() => undefined);
  }

  // ---- changes ----

  /** Changes the State: the one way to (reducer.ts). */
  private dispatch(a: Action, seq = 0n): void {
    reduce(this.data, a, this, seq);
  }

  /** An event of the stream, applied; the stream resumes after it. */
  private apply(ev: Event): void {
    if (ev.kind.case === "voiceState" && this.voiceHeld) this.voiceHeld.push(ev.kind.value);
    else if (ev.kind.case) this.dispatch(ev.kind, ev.seq);
    if (ev.seq > this.seq) this.seq = ev.seq;
  }

  // The Effects of a change (reducer.ts).

  emit(...topics: Topic[]): void {
    this.em.emit(...topics);
  }

  messageAdded(m: Message): void {
    this.view(m.channelId, m.threadRootId, false)?.add(m);
  }

  claimed(): void {
    for (const v of this.views.values()) v.claim();
  }

  messageChanged(m: Message): void {
    this.view(m.channelId, "", false)?.update(m);
    this.view(m.channelId, m.threadRootId || m.id, false)?.update(m);
    for (const v of this.views.values()) if (v.channelId === m.channelId) v.requote(m);
  }

  arrived(clientId: string): void {
    this.outbox.arrived(clientId);
  }

  reload(soon: boolean): void {
    if (soon) this.reloadStateSoon();
    else void this.loadState();
  }

  typingStarted(channelId: string, memberId: string): void {
    setTimeout(() => this.dispatch({ case: "typingEnded", value: { channelId, memberId } }), TYPING_MS + 100);
  }

  slowmodeStarted(channelId: string, until: number): void {
    setTimeout(() => this.dispatch({ case: "slowmodeEnded", value: channelId }), until - Date.now() + 50);
  }

  private timeoutTimer = 0;

  timeoutRunning(until: bigint): void {
    clearTimeout(this.timeoutTimer);
    // A timer waits at most 2^31-1 ms (24.8 days; a timeout lasts up to 28): a longer one fires
    // at once. One that fires early looks again.
    const wait = Math.min(Number(until) - Date.now() + 50, 2 ** 31 - 1);
    this.timeoutTimer = window.setTimeout(() => {
      if (BigInt(Date.now()) >= until) this.dispatch({ case: "timeoutEnded", value: until });
      else if (this.data.me?.timedOutUntilMs === until) this.timeoutRunning(until);
    }, wait);
  }

  loadReports(): void {
    this.act.loadReports().catch(() => undefined);
  }

  /**
   * A message a filter refused: back in its message box (when the box is empty, as it is just
   * after sending), as the person wrote it, with the refusal as a notice; true when it went back.
   */
  private refused(p: Pending, why: string): boolean {
    const text = fromWire(p.text, (id) => this.data.members.get(id)?.username);
    const { ok, gone } = restoreDraft(draftKey(this.base, p.channelId, p.threadRootId), text, p.attachments, Date.now());
    if (!ok) return false;
    this.noticeBoard.tell(`Your message was not sent: ${why}`, "error");
    if (gone.length > 0) this.noticeBoard.tell(`No longer on the server (uploaded more than a day ago), attach again: ${gone.join(", ")}`, "error");
    return true;
  }

  /**
   * ListVoiceStates, holding the voice_state events that come meanwhile: then those newer than
   * the answer (the reducer compares versions). One call at a time; asked again meanwhile, once
   * more after it.
   */
  reloadVoice(): void {
    if (this.voiceHeld) {
      this.voiceAgain = true;
      return;
    }
    if (![...this.data.channels.values()].some((c) => c.kind === ChannelKind.VOICE)) return;
    this.voiceHeld = [];
    this.api.voice
      .listVoiceStates({})
      .then((res) => this.dispatch({ case: "voiceListed", value: res }))
      .catch(() => undefined)
      .finally(() => {
        const held = this.voiceHeld ?? [];
        this.voiceHeld = undefined;
        for (const v of held) this.dispatch({ case: "voiceState", value: v });
        if (this.voiceAgain && !this.closed) {
          this.voiceAgain = false;
          this.reloadVoice();
        }
      });
  }

  notify(m: Message): void {
    if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
    if (this.viewing === m.channelId && document.hasFocus()) return;
    const s = this.data;
    const ch = s.channels.get(m.channelId);
    const where = ch && ch.kind !== ChannelKind.DM ? " in #" + ch.name : "";
    const body = [...plainText(m.text, (id) => memberName(s, id))].slice(0, 200).join("");
    const title = nameOf(s, m.authorId) + where;
    const options = { body: body || "sent a file", tag: m.id };
    try {
      const n = new Notification(title, options);
      n.onclick = () => {
        window.focus();
        this.onOpenMessage?.(m.channelId, m.threadRootId || m.id);
        n.close();
      };
    } catch {
      // A phone's browser has no Notification constructor: the service worker shows it, and
      // opens the message when it is clicked (web/pwa/sw.js).
      const url = location.href.split("#")[0] + channelHash(m.channelId, { message: m.threadRootId || m.id });
      navigator.serviceWorker?.ready.then((r) => r.showNotification(title, { ...options, data: { url } })).catch(() => undefined);
    }
  }

  private muteTimer = 0;
  private diskTimer = 0;

  /**
   * What the calls find of the server's disk. While it is full, /healthz (which says so) is
   * asked every 10 s, so the notice goes once space is freed even when nothing is sent.
   */
  private diskFull(full: boolean): void {
    this.dispatch({ case: "diskFull", value: full });
    if (!full || this.closed) {
      clearInterval(this.diskTimer);
      this.diskTimer = 0;
    } else if (!this.diskTimer) {
      this.diskTimer = window.setInterval(() => {
        fetch(this.base + "/healthz", { cache: "no-store" })
          .then((res) => res.ok && this.diskFull(false))
          .catch(() => undefined);
      }, 10_000);
    }
  }

  muteEndsAt(atMs: number): void {
    clearTimeout(this.muteTimer);
    if (!atMs || this.closed) return;
    // setTimeout waits at most 2^31-1 ms (24.8 days): a later end wakes it then, to wait again.
    const delay = Math.min(Math.max(atMs - Date.now(), 0) + 50, 2 ** 31 - 1);
    this.muteTimer = window.setTimeout(() => this.dispatch({ case: "muteEnded", value: undefined }), delay);
  }

  /**
   * The person's notification preferences, which GetState does not hold. A change the stream
   * brings meanwhile is newer than the answer, which then is dropped.
   */
  private loadPrefs(): void {
    const before = this.data.prefs;
    // Never a failure of the load it follows: an answer or nothing.
    Promise.resolve()
      .then(() => this.api.notify.getNotificationPrefs({}))
      .then((res) => {
        if (res.prefs && this.data.prefs === before && !this.closed) this.dispatch({ case: "notificationPrefs", value: res.prefs });
      })
      .catch(() => undefined);
  }

  // Two changes close together (emoji deleted one after another, settings saved in a row) make
  // two loads of the list or the card: only the newest one's answer is kept, as the other may
  // come last and was read before the second change.
  private emojiGeneration = 0;
  private infoGeneration = 0;

  refreshEmoji(): void {
    const gen = ++this.emojiGeneration;
    fetchEmoji(this.api)
      .then((e) => {
        if (gen === this.emojiGeneration) this.dispatch({ case: "emojiList", value: e });
      })
      .catch(() => undefined);
  }

  refreshInfo(): void {
    const gen = ++this.infoGeneration;
    this.api.server
      .getServerInfo({})
      .then((info) => {
        if (gen === this.infoGeneration) this.dispatch({ case: "info", value: info as GetServerInfoResponse });
      })
      .catch(() => undefined);
  }
}
