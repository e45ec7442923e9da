// The person's voice commands (Commands.voice): joining and leaving a voice channel, muting,
// deafening, sharing a screen, push-to-talk and each person's volume. The call itself (its
// WebRTC connection and the sound) is voice/call.ts; what the screens show of it reaches the
// State as the reducer's `call` action, and the voice states its calls answer as
// `voiceStates`, the same way the stream's voice_state events do. Failures of the switches
// tell the person (a notice); a refused join shows in the call's message, where the person
// asked to join.

import { errorText, type Api } from "../lib/api";
import { VoiceCall } from "../voice/call";
import { loadVoicePrefs, saveVoicePrefs, type VoicePrefs } from "../voice/prefs";
import type { NoticeKind } from "./notices";
import type { Action } from "./reducer";
import type { State } from "./store";

/** What the voice commands need of the session. */
export type VoiceHost = {
  readonly api: Api;
  readonly state: State;
  dispatch(a: Action): void;
  tell(text: string, kind: NoticeKind): void;
};

export class VoiceCommands {
  private call?: VoiceCall;

  constructor(private readonly host: VoiceHost) {
    host.dispatch({ case: "voicePrefs", value: loadVoicePrefs() });
  }

  /** Joins a voice channel, leaving the one the person is in. */
  async join(channelId: string): Promise<void> {
    const before = this.call;
    if (before && !before.ended && before.channelId === channelId) return;
    const prefs = this.host.state.voicePrefs;
    // Muted or deafened stays so from one channel to the next.
    const was = this.host.state.call;
    const call: VoiceCall = new VoiceCall(
      {
        api: this.host.api,
        changed: (v) => {
          if (this.call === call) this.host.dispatch({ case: "call", value: v });
        },
        states: (list) => this.host.dispatch({ case: "voiceStates", value: list }),
      },
      channelId,
      {
        muted: !!was?.muted && !was.noMic,
        deafened: !!was?.deafened,
        ptt: prefs.ptt,
        volume: (id) => this.host.state.voicePrefs.volumes[id] ?? 1,
      },
    );
    this.call = call;
    this.host.dispatch({ case: "call", value: call.current });
    if (before && !before.ended) await before.leave();
    await call.start();
  }

  /** Leaves the voice channel the person is in. */
  async leave(): Promise<void> {
    await this.call?.leave();
  }

  /** Forgets a call that is over (its message read). */
  dismiss(): void {
    if (this.call && !this.call.ended) return;
    this.call = undefined;
    this.host.dispatch({ case: "call", value: undefined });
  }

  async setMuted(on: boolean): Promise<void> {
    await this.run(on ? "Could not mute" : "Could not unmute", (c) => c.setMuted(on));
  }

  async setDeafened(on: boolean): Promise<void> {
    await this.run(on ? "Could not deafen" : "Could not undeafen", (c) => c.setDeafened(on));
  }

  /** Shares a screen; the browser asks which (nothing happens when the person cancels). */
  async share(): Promise<void> {
    try {
      await this.call?.share();
    } catch (e) {
      if (e instanceof DOMException && e.name === "NotAllowedError") return;
      this.host.tell("Could not share your screen: " + errorText(e), "error");
    }
  }

  async stopSharing(): Promise<void> {
    await this.run("Could not stop sharing", (c) => c.stopSharing());
  }

  /** The push-to-talk key went down (held) or up. */
  talk(held: boolean): void {
    this.call?.setTalking(held);
  }

  /** Push-to-talk on or off, and its key (KeyboardEvent.code). */
  setPushToTalk(on: boolean, key: string): void {
    this.savePrefs({ ...this.host.state.voicePrefs, ptt: on, pttKey: key });
    this.call?.setPtt(on);
  }

  /** How loud someone plays, 0 to 1 (kept in this browser). */
  setVolume(memberId: string, volume: number): void {
    const volumes = { ...this.host.state.voicePrefs.volumes };
    if (volume >= 1) delete volumes[memberId];
    else volumes[memberId] = Math.max(0, volume);
    this.savePrefs({ ...this.host.state.voicePrefs, volumes });
    this.call?.setVolume(memberId, volume);
  }

  /** At the end of the session (a sign-out): out of voice. */
  close(): void {
    void this.call?.leave();
  }

  private savePrefs(p: VoicePrefs): void {
    saveVoicePrefs(p);
    this.host.dispatch({ case: "voicePrefs", value: p });
  }

  private async run(what: string, fn: (c: VoiceCall) => Promise<void>): Promise<void> {
    const c = this.call;
    if (!c || c.ended) return;
    try {
      await fn(c);
    } catch (e) {
      if (!c.ended) this.host.tell(`${what}: ${errorText(e)}`, "error");
    }
  }
}
