// One voice call: the person's seat in a voice channel, its WebRTC connection to the server's
// forwarding unit, and the sound of the others (proto/svc/v1/voice.proto, the protocol step by
// step). The server always offers and the call answers: JoinVoice, then the session's Signal
// stream brings offers, answered in order; the call's own ICE candidates go up one by one
// (Trickle ICE). The microphone and the screen are the two slots of the first offer, sent on
// with replaceTrack; every other m-line is someone else's microphone or screen, its stream's id
// their member id.
//
// What the screens need of it is a small CallView, given to the host at every change (the
// session's reducer keeps it: state/voice.ts); the media stay here: the others' audio plays
// from audio elements made here (one per person, at the volume the person chose), their
// screens are MediaStreams in the view for a <video> to show.
//
// A blip of the network is ridden out: the Signal stream is opened again (the server keeps the
// session 15 s without one), and a media connection that breaks asks the server for an ICE
// restart (RestartIce: fresh TURN credentials, then an offer with new ICE credentials).

import { Code } from "@connectrpc/connect";
import type { VoiceState } from "../gen/svc/v1/types_pb";
import { VoiceEndReason, type IceServer, type VoiceOffer } from "../gen/svc/v1/voice_pb";
import { codeOf, errorText, type Api } from "../lib/api";

/** Where a call is: asking to join, connecting its media, connected, riding out a blip, over. */
export type CallPhase = "joining" | "connecting" | "connected" | "reconnecting" | "ended";

/** What the screens show of the person's call. */
export type CallView = {
  readonly channelId: string;
  readonly phase: CallPhase;
  /** Why the call ended or could not start, for people ("" when the person left). */
  readonly message: string;
  /** JoinVoice seated the person (a call that ends before was refused). */
  readonly seated: boolean;
  readonly muted: boolean;
  readonly deafened: boolean;
  readonly sharing: boolean;
  /** The browser gave no microphone (none, or refused): the person listens, muted. */
  readonly noMic: boolean;
  /** Push-to-talk is on. */
  readonly ptt: boolean;
  /** The push-to-talk key is held. */
  readonly talking: boolean;
  /** The screens the others share, by member id. */
  readonly screens: ReadonlyMap<string, MediaStream>;
};

/** What a call needs of the session. */
export interface CallHost {
  readonly api: Api;
  changed(view: CallView): void;
  /** Voice states a call's answer brought (JoinVoice, SetVoiceState): shown before their events. */
  states(states: VoiceState[]): void;
}

export type CallOptions = {
  muted: boolean;
  deafened: boolean;
  ptt: boolean;
  /** The volume the person chose for someone, 0 to 1. */
  volume: (memberId: string) => number;
};

/** The others' screens are sent at most this often (frames a second): text stays sharp. */
const SCREEN_FPS = 15;
/** The server sends a heartbeat every 25 s: a Signal stream silent for longer is dead. */
const SIGNAL_SILENCE_MS = 32_000;
/** The server keeps a session 15 s without a Signal stream. */
const SIGNAL_GRACE_MS = 14_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function iceServers(list: IceServer[]): RTCIceServer[] {
  return list.map((s) => ({ urls: s.urls, username: s.username, credential: s.credential }));
}

/** What people are told when the server ends a call. */
function endedText(reason: VoiceEndReason, message: string): string {
  switch (reason) {
    case VoiceEndReason.LEFT:
      return "";
    case VoiceEndReason.REPLACED:
      return "You joined voice somewhere else, so you left here.";
    case VoiceEndReason.REMOVED:
      return "You were taken out of voice" + (message ? ": " + message : ".");
    case VoiceEndReason.SHUTDOWN:
      return "The server is restarting: join again in a moment.";
    default:
      return "Voice was disconnected" + (message ? ": " + message : ".");
  }
}

/** Why JoinVoice was refused, for people. */
function refusal(e: unknown): string {
  // A server started with -voice-port 0 answers every call so; say it without the flag.
  if (codeOf(e) === Code.Unavailable && /voice is off/i.test(errorText(e))) return "Voice is off on this server.";
  return "Could not join: " + errorText(e);
}

export class VoiceCall {
  private sessionId = "";
  /** The token of the last call, for the LeaveVoice a closing page sends. */
  private token = "";
  private pc?: RTCPeerConnection;
  private mic?: MediaStreamTrack;
  private screen?: MediaStreamTrack;
  /** The m-lines of the person's microphone and screen (the first offer's). */
  private slots = { audio: "", screen: "" };
  /** The offers are answered one after another. */
  private answering: Promise<void> = Promise.resolve();
  /** Aborted when the call is over: the Signal stream, the waits. */
  private readonly over = new AbortController();
  private signalUp = false;
  private iceUp = false;
  private everConnected = false;
  private iceTimer = 0;
  /** The others' microphones, by member id. */
  private readonly players = new Map<string, { el: HTMLAudioElement; track: MediaStreamTrack }>();
  private readonly screens = new Map<string, MediaStream>();
  private view: CallView;

  constructor(
    private readonly host: CallHost,
    readonly channelId: string,
    private readonly opts: CallOptions,
  ) {
    this.view = {
      channelId,
      phase: "joining",
      message: "",
      seated: false,
      muted: opts.muted,
      deafened: opts.deafened,
      sharing: false,
      noMic: false,
      ptt: opts.ptt,
      talking: false,
      screens: new Map(),
    };
  }

  get current(): CallView {
    return this.view;
  }

  get ended(): boolean {
    return this.over.signal.aborted;
  }

  /** Takes the microphone, joins, and connects; a refusal ends the call with what to tell. */
  async start(): Promise<void> {
    let noMic = false;
    try {
      // The browser asks the person first; without a microphone they can still listen.
      const media = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
      this.mic = media.getAudioTracks()[0];
    } catch {
      noMic = true;
    }
    if (this.ended) return this.release();
    this.set({ noMic, muted: this.view.muted || noMic });
    const api = this.host.api.voice;
    let joined;
    try {
      this.token = (await this.host.api.token()) ?? "";
      joined = await api.joinVoice({ channelId: this.channelId, muted: this.view.muted, deafened: this.view.deafened });
    } catch (e) {
      if (!this.ended) this.finish(refusal(e));
      return;
    }
    this.sessionId = joined.sessionId;
    this.set({ seated: true });
    if (this.ended) {
      // Left while joining: the seat taken meanwhile goes too.
      void api.leaveVoice({ sessionId: this.sessionId }).catch(() => undefined);
      return;
    }
    this.host.states(joined.states);
    const pc = new RTCPeerConnection({ iceServers: iceServers(joined.iceServers), bundlePolicy: "max-bundle" });
    this.pc = pc;
    pc.onicecandidate = (e) => this.candidate(e.candidate);
    pc.oniceconnectionstatechange = () => this.iceChanged();
    pc.ontrack = (e) => this.track(e);
    this.applyMic();
    addEventListener("pagehide", this.onPageHide);
    this.set({ phase: "connecting" });
    void this.signal();
  }

  // ---- the person's switches ----

  async setMuted(on: boolean): Promise<void> {
    if (this.view.noMic && !on) return;
    this.set({ muted: on });
    this.applyMic();
    try {
      await this.setState({ muted: on });
    } catch (e) {
      // The others still hear nothing: show so. (A mute the server did not take stays on here.)
      if (!on) this.set({ muted: true });
      this.applyMic();
      throw e;
    }
  }

  async setDeafened(on: boolean): Promise<void> {
    const hear = (deaf: boolean) => {
      this.set({ deafened: deaf });
      this.applyMic();
      for (const p of this.players.values()) p.el.muted = deaf;
    };
    hear(on);
    try {
      await this.setState({ deafened: on });
    } catch (e) {
      if (!on) hear(true);
      throw e;
    }
  }

  setPtt(on: boolean): void {
    this.set({ ptt: on, talking: false });
    this.applyMic();
  }

  /** The push-to-talk key went down (true) or up. */
  setTalking(held: boolean): void {
    if (held === this.view.talking) return;
    this.set({ talking: held });
    this.applyMic();
  }

  setVolume(memberId: string, volume: number): void {
    const p = this.players.get(memberId);
    if (p) p.el.volume = Math.min(1, Math.max(0, volume));
  }

  /** Shares a screen (the browser asks which). Throws when the person or the browser says no. */
  async share(): Promise<void> {
    const media = await navigator.mediaDevices.getDisplayMedia({ video: { frameRate: { ideal: SCREEN_FPS, max: SCREEN_FPS } }, audio: false });
    const track = media.getVideoTracks()[0];
    if (this.ended || !track) {
      media.getTracks().forEach((t) => t.stop());
      return;
    }
    this.screen?.stop();
    track.contentHint = "detail";
    // The browser's own "Stop sharing".
    track.onended = () => {
      if (this.screen === track) void this.stopSharing();
    };
    this.screen = track;
    await this.sender(this.slots.screen)?.replaceTrack(track);
    this.set({ sharing: true });
    await this.setState({ sharingScreen: true });
  }

  async stopSharing(): Promise<void> {
    const track = this.screen;
    if (!track) return;
    this.screen = undefined;
    track.stop();
    await this.sender(this.slots.screen)?.replaceTrack(null);
    this.set({ sharing: false });
    await this.setState({ sharingScreen: false });
  }

  /** Leaves the channel. */
  async leave(): Promise<void> {
    if (this.ended) return;
    const id = this.sessionId;
    this.finish("");
    if (id) await this.host.api.voice.leaveVoice({ sessionId: id }).catch(() => undefined);
  }

  // ---- the connection ----

  /** The Signal stream, opened again after a blip, for as long as the call lasts. */
  private async signal(): Promise<void> {
    let failures = 0;
    let brokeAt = 0;
    while (!this.ended) {
      const ac = new AbortController();
      const stop = () => ac.abort();
      this.over.signal.addEventListener("abort", stop);
      let watchdog = 0;
      const kick = () => {
        clearTimeout(watchdog);
        watchdog = window.setTimeout(stop, SIGNAL_SILENCE_MS);
      };
      // The server sends a heartbeat as the stream opens: the first event says it is up.
      const up = () => {
        failures = 0;
        brokeAt = 0;
        if (!this.signalUp) {
          this.signalUp = true;
          this.update();
        }
      };
      try {
        kick();
        this.token = (await this.host.api.token()) ?? this.token;
        for await (const ev of this.host.api.voice.signal({ sessionId: this.sessionId }, { signal: ac.signal })) {
          kick();
          up();
          if (ev.kind.case === "offer") {
            const offer = ev.kind.value;
            this.answering = this.answering.then(() => this.answer(offer));
          } else if (ev.kind.case === "ended") {
            this.finish(endedText(ev.kind.value.reason, ev.kind.value.message));
            return;
          }
        }
      } catch (e) {
        // The session is gone (it ended while the stream was away).
        if (!this.ended && codeOf(e) === Code.NotFound) return this.finish(endedText(VoiceEndReason.CONNECTION_LOST, "the connection was lost"));
      } finally {
        clearTimeout(watchdog);
        this.over.signal.removeEventListener("abort", stop);
      }
      if (this.ended) return;
      // A blip: open the stream again while the server still keeps the session.
      brokeAt ||= Date.now();
      if (Date.now() - brokeAt > SIGNAL_GRACE_MS) {
        void this.leave();
        this.set({ message: endedText(VoiceEndReason.CONNECTION_LOST, "the server could not be reached") });
        return;
      }
      if (this.signalUp) {
        this.signalUp = false;
        this.update();
      }
      await sleep(Math.min(250 * 2 ** failures++, 2000));
    }
  }

  /** Answers one of the server's offers. */
  private async answer(o: VoiceOffer): Promise<void> {
    const pc = this.pc;
    if (!pc || this.ended) return;
    try {
      await pc.setRemoteDescription({ type: "offer", sdp: o.sdp });
      if (o.audioMid) this.slots = { audio: o.audioMid, screen: o.screenMid };
      // The person's two slots send (the server's offer has them recvonly), the rest receive.
      for (const t of pc.getTransceivers()) {
        const mine = t.mid === this.slots.audio ? this.mic : t.mid === this.slots.screen ? this.screen : undefined;
        if (t.mid !== this.slots.audio && t.mid !== this.slots.screen) continue;
        if (t.direction !== "sendonly") t.direction = "sendonly";
        if (t.sender.track !== (mine ?? null)) await t.sender.replaceTrack(mine ?? null);
      }
      const answer = await pc.createAnswer();
      await pc.setLocalDescription(answer);
      await this.host.api.voice.answer({ sessionId: this.sessionId, sdp: answer.sdp ?? "", revision: o.revision });
      // An ICE restart may keep the connection it had without a change of state to say so.
      if (o.iceRestart) this.iceChanged();
    } catch (e) {
      // A newer offer replaced this one (it comes next), or the call ended meanwhile.
      if (this.ended || codeOf(e) === Code.FailedPrecondition || codeOf(e) === Code.NotFound) return;
      void this.leave();
      this.set({ message: "Voice could not connect: " + errorText(e) });
    }
  }

  private candidate(c: RTCIceCandidate | null): void {
    if (!c?.candidate || this.ended) return;
    this.host.api.voice
      .addIceCandidate({
        sessionId: this.sessionId,
        candidate: c.candidate,
        sdpMid: c.sdpMid ?? "",
        sdpMlineIndex: c.sdpMLineIndex ?? undefined,
        usernameFragment: c.usernameFragment ?? "",
      })
      .catch(() => undefined);
  }

  private iceChanged(): void {
    const s = this.pc?.iceConnectionState;
    if (s === "connected" || s === "completed") {
      this.iceUp = this.everConnected = true;
      clearTimeout(this.iceTimer);
      this.iceTimer = 0;
    } else if (s === "disconnected" || s === "failed") {
      this.iceUp = false;
      // Disconnected often mends itself within a second or two; failed does not.
      if (!this.iceTimer) this.iceTimer = window.setTimeout(() => void this.restartIce(), s === "failed" ? 0 : 2000);
    }
    this.update();
  }

  /** Asks the server for an ICE restart, again every few seconds until the media flow again. */
  private async restartIce(): Promise<void> {
    this.iceTimer = 0;
    if (this.ended || this.iceUp || !this.pc) return;
    try {
      const res = await this.host.api.voice.restartIce({ sessionId: this.sessionId });
      this.pc.setConfiguration({ ...this.pc.getConfiguration(), iceServers: iceServers(res.iceServers) });
    } catch (e) {
      if (codeOf(e) === Code.NotFound) return;
    }
    if (!this.ended && !this.iceUp && !this.iceTimer) this.iceTimer = window.setTimeout(() => void this.restartIce(), 6000);
  }

  /** Someone's microphone or screen arrived (the stream's id is their member id). */
  private track(e: RTCTrackEvent): void {
    const stream = e.streams[0];
    const member = stream?.id;
    if (!member) return;
    const track = e.track;
    if (track.kind === "audio") {
      this.players.get(member)?.el.pause();
      const el = new Audio();
      el.srcObject = new MediaStream([track]);
      el.volume = Math.min(1, Math.max(0, this.opts.volume(member)));
      el.muted = this.view.deafened;
      el.autoplay = true;
      void el.play().catch(() => undefined);
      this.players.set(member, { el, track });
    } else {
      this.screens.set(member, new MediaStream([track]));
      this.update();
    }
    // The server took the track away (the m-line went inactive): they left or stopped sharing.
    stream.onremovetrack = (r) => {
      const p = this.players.get(member);
      if (p?.track === r.track) {
        p.el.pause();
        p.el.srcObject = null;
        this.players.delete(member);
      }
      if (this.screens.get(member)?.getTracks()[0] === r.track) {
        this.screens.delete(member);
        this.update();
      }
    };
  }

  // ---- helpers ----

  private sender(mid: string): RTCRtpSender | undefined {
    return mid ? this.pc?.getTransceivers().find((t) => t.mid === mid)?.sender : undefined;
  }

  /** The microphone sends while the person is heard: not muted, not deafened, the key held. */
  private applyMic(): void {
    const v = this.view;
    if (this.mic) this.mic.enabled = !v.muted && !v.deafened && (!v.ptt || v.talking);
  }

  private async setState(change: { muted?: boolean; deafened?: boolean; sharingScreen?: boolean }): Promise<void> {
    if (!this.sessionId || this.ended) return;
    const res = await this.host.api.voice.setVoiceState({ sessionId: this.sessionId, ...change });
    if (res.state) this.host.states([res.state]);
  }

  private readonly onPageHide = () => {
    // The page goes: LeaveVoice with a request that outlives it, so the others see the person
    // leave now rather than when the server gives up on the session.
    if (this.ended || !this.sessionId) return;
    void fetch(this.host.api.base + "/svc.v1.VoiceService/LeaveVoice", {
      method: "POST",
      keepalive: true,
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + this.token },
      body: JSON.stringify({ sessionId: this.sessionId }),
    }).catch(() => undefined);
    this.finish("");
  };

  /** Ends the call here: the connection, the microphone, the screen, the sound. */
  private finish(message: string): void {
    if (!this.ended) this.over.abort();
    this.release();
    removeEventListener("pagehide", this.onPageHide);
    clearTimeout(this.iceTimer);
    this.pc?.close();
    for (const p of this.players.values()) {
      p.el.pause();
      p.el.srcObject = null;
    }
    this.players.clear();
    this.screens.clear();
    this.set({ phase: "ended", message, sharing: false, talking: false });
  }

  private release(): void {
    this.mic?.stop();
    this.screen?.stop();
    this.screen = undefined;
  }

  private set(change: Partial<CallView>): void {
    this.view = { ...this.view, ...change };
    this.update();
  }

  private update(): void {
    const v = this.view;
    const phase: CallPhase =
      v.phase === "ended" || v.phase === "joining" ? v.phase : !this.everConnected ? "connecting" : this.signalUp && this.iceUp ? "connected" : "reconnecting";
    this.view = { ...v, phase, screens: new Map(this.screens) };
    this.host.changed(this.view);
  }
}
