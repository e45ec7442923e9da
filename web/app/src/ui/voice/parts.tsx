// The pieces the voice screens share: a person's voice marks (muted, deafened, live), the
// call's buttons, the voice settings (push-to-talk), and the push-to-talk key itself.

import { useEffect, useState } from "preact/hooks";
import type { VoiceState } from "../../gen/svc/v1/types_pb";
import type { Commands } from "../../state/commands";
import type { CallView } from "../../voice/call";
import { keyName, type VoicePrefs } from "../../voice/prefs";
import { Dialog } from "../common";
import { Icon } from "./icons";
import "./voice.css";

/** What the voice screens call. */
export type VoiceActs = Pick<Commands, "voice">;

/** Whether this browser can share a screen (phones cannot). */
export const canShare = typeof navigator !== "undefined" && !!navigator.mediaDevices && "getDisplayMedia" in navigator.mediaDevices;

/** A person's marks: muted, deafened, sharing their screen. */
export function VoiceMarks(props: { v: VoiceState }) {
  const { v } = props;
  return (
    <span class="voice-marks">
      {v.sharingScreen && <span class="voice-live">Live</span>}
      {v.deafened ? <Icon name="headphonesOff" label="deafened" size={16} /> : v.muted && <Icon name="micOff" label="muted" size={16} />}
    </span>
  );
}

/** Where the call is, in words. */
export function phaseText(call: CallView): string {
  switch (call.phase) {
    case "joining":
      return "Joining…";
    case "connecting":
      return "Connecting…";
    case "reconnecting":
      return "Reconnecting…";
    case "connected":
      return "Voice connected";
    default:
      return "Not in voice";
  }
}

/** The call's switches: microphone, sound, screen, settings, leave. */
export function CallButtons(props: { call: CallView; act: VoiceActs; prefs: VoicePrefs; big?: boolean }) {
  const { call, act } = props;
  const [settings, setSettings] = useState(false);
  const v = act.voice;
  const size = props.big ? 24 : 20;
  const cls = props.big ? "voice-button big" : "voice-button";
  const ended = call.phase === "ended";
  return (
    <div class={props.big ? "call-buttons big" : "call-buttons"} role="group" aria-label="Voice controls">
      <button
        type="button"
        class={cls + (call.muted ? " off" : "")}
        aria-label="Mute"
        aria-pressed={call.muted}
        title={call.noMic ? "No microphone: your browser gave none" : call.muted ? "Unmute" : "Mute"}
        disabled={call.noMic || ended}
        onClick={() => void v.setMuted(!call.muted)}
      >
        <Icon name={call.muted ? "micOff" : "mic"} size={size} />
      </button>
      <button
        type="button"
        class={cls + (call.deafened ? " off" : "")}
        aria-label="Deafen"
        aria-pressed={call.deafened}
        title={call.deafened ? "Undeafen" : "Deafen: hear nobody"}
        disabled={ended}
        onClick={() => void v.setDeafened(!call.deafened)}
      >
        <Icon name={call.deafened ? "headphonesOff" : "headphones"} size={size} />
      </button>
      {canShare && (
        <button
          type="button"
          class={cls + (call.sharing ? " on" : "")}
          aria-label="Share your screen"
          aria-pressed={call.sharing}
          title={call.sharing ? "Stop sharing your screen" : "Share your screen"}
          disabled={ended}
          onClick={() => void (call.sharing ? v.stopSharing() : v.share())}
        >
          <Icon name={call.sharing ? "screenOff" : "screen"} size={size} />
        </button>
      )}
      <button type="button" class={cls} aria-label="Voice settings" title="Voice settings" onClick={() => setSettings(true)}>
        <Icon name="settings" size={size} />
      </button>
      <button type="button" class={cls + " leave"} aria-label="Leave voice" title="Leave voice" disabled={ended} onClick={() => void v.leave()}>
        <Icon name="leave" size={size} />
      </button>
      {settings && <VoiceSettings act={act} prefs={props.prefs} onClose={() => setSettings(false)} />}
    </div>
  );
}

/** Push-to-talk: on or off, and its key. */
export function VoiceSettings(props: { act: VoiceActs; prefs: VoicePrefs; onClose: () => void }) {
  const { act, prefs } = props;
  const [choosing, setChoosing] = useState(false);
  useEffect(() => {
    if (!choosing) return;
    const onKey = (e: KeyboardEvent) => {
      e.preventDefault();
      e.stopPropagation();
      setChoosing(false);
      if (e.code && e.code !== "Escape") act.voice.setPushToTalk(prefs.ptt, e.code);
    };
    // Before the dialog sees it: Escape cancels the choice, not the dialog.
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [choosing, prefs.ptt]);
  return (
    <Dialog title="Voice settings" onClose={props.onClose}>
      <div class="form voice-settings">
        <label class="check">
          <input type="checkbox" checked={prefs.ptt} onChange={(e) => act.voice.setPushToTalk(e.currentTarget.checked, prefs.pttKey)} />
          <span>
            <strong>Push to talk</strong> <span class="muted">your microphone is on only while you hold a key</span>
          </span>
        </label>
        <div class="field-row voice-key-row">
          <span>Key</span>
          <kbd class="voice-key">{keyName(prefs.pttKey)}</kbd>
          <button type="button" class="button" onClick={() => setChoosing(true)} aria-label="Choose the push-to-talk key">
            {choosing ? "Press a key… (Escape cancels)" : "Change"}
          </button>
        </div>
        <p class="muted small">The key does nothing while you type in a text box. Each person's volume is on their card in the voice channel.</p>
      </div>
    </Dialog>
  );
}

/** While push-to-talk is on in a call: the key held is the microphone on. */
export function usePushToTalk(act: VoiceActs, on: boolean, key: string): void {
  useEffect(() => {
    if (!on) return;
    const typing = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
    const down = (e: KeyboardEvent) => {
      if (e.code !== key || typing(e.target)) return;
      e.preventDefault();
      if (!e.repeat) act.voice.talk(true);
    };
    const up = (e: KeyboardEvent) => {
      if (e.code === key) act.voice.talk(false);
    };
    const away = () => act.voice.talk(false);
    window.addEventListener("keydown", down);
    window.addEventListener("keyup", up);
    window.addEventListener("blur", away);
    return () => {
      window.removeEventListener("keydown", down);
      window.removeEventListener("keyup", up);
      window.removeEventListener("blur", away);
      away();
    };
  }, [on, key]);
}
