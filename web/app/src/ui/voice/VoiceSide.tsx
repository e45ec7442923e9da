// Voice in the sidebar: a voice channel's link with the people in it (who speaks ringed, who is
// muted or deafened or sharing marked), and the bar of the person's own call, in the sidebar
// and, on a phone, as a strip under the screen when the call's channel is not the one open.

import { type Channel } from "../../gen/svc/v1/types_pb";
import { channelHash } from "../../lib/router";
import { callChannel, nameOf, voiceRoom } from "../../state/selectors";
import { useStore, type Store } from "../../state/store";
import { Avatar } from "../common";
import { Icon } from "./icons";
import { CallButtons, phaseText, usePushToTalk, VoiceMarks, type VoiceActs } from "./parts";

export function VoiceChannelItem(props: { store: Store; channel: Channel; current: string; onNavigate: () => void }) {
  const { store, channel: c } = props;
  const state = useStore(store, "voice", "members");
  const people = voiceRoom(state, c.id);
  const current = props.current === c.id;
  const here = callChannel(state) === c.id;
  const label = `${c.name}, voice channel` + (people.length > 0 ? `, ${people.length} in it` : "") + (here ? ", you are in it" : "");
  return (
    <li>
      <a
        href={channelHash(c.id)}
        class={`side-link voice-link${current ? " current" : ""}${here ? " in-call" : ""}`}
        aria-current={current ? "page" : undefined}
        aria-label={label}
        data-channel={c.id}
        onClick={props.onNavigate}
      >
        <span class="side-icon">
          <Icon name="speaker" size={16} />
        </span>
        <span class="side-name">{c.name}</span>
      </a>
      {people.length > 0 && (
        <ul class="voice-people" aria-label={`In ${c.name}`}>
          {people.map((v) => (
            <li key={v.memberId} class={v.speaking ? "voice-person speaking" : "voice-person"} data-member={v.memberId}>
              <span class="voice-ring">
                <Avatar base={store.base} member={state.members.get(v.memberId)} size={24} />
              </span>
              <span class="voice-person-name">{nameOf(state, v.memberId)}</span>
              {v.speaking && <span class="visually-hidden">speaking</span>}
              <VoiceMarks v={v} />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * The person's call: where, how it is going, and its buttons. In the sidebar (where: "side");
 * on a phone also under the open screen (where: "dock"), except in the call's own channel,
 * whose screen has the buttons. A call that ended by itself says why until dismissed.
 */
export function VoiceBar(props: { store: Store; act: VoiceActs; where: "side" | "dock"; current: string; onNavigate?: () => void; inert?: boolean }) {
  const { store, act } = props;
  const state = useStore(store, "voice", "channels");
  const call = state.call;
  const prefs = state.voicePrefs;
  // The side bar is always there while the chat is: it holds the push-to-talk key.
  usePushToTalk(act, props.where === "side" && !!call && call.phase !== "ended" && prefs.ptt, prefs.pttKey);
  // A refused join says why where it was asked for (the channel's screen).
  if (!call || (call.phase === "ended" && (!call.message || !call.seated))) return null;
  if (props.where === "dock" && props.current === call.channelId) return null;
  const name = state.channels.get(call.channelId)?.name ?? "";
  const cls = props.where === "dock" ? "voice-bar voice-dock" : "voice-bar";
  if (call.phase === "ended") {
    return (
      <section class={cls + " ended"} aria-label="Voice" inert={props.inert}>
        <p class="voice-bar-message" role="alert">
          {call.message}
        </p>
        <button type="button" class="icon-button" aria-label="Dismiss" onClick={() => act.voice.dismiss()}>
          ✕
        </button>
      </section>
    );
  }
  return (
    <section class={cls} aria-label="Voice" inert={props.inert}>
      <div class="voice-bar-where">
        <span class={`voice-phase phase-${call.phase}`} role="status">
          {phaseText(call)}
          {call.ptt && call.phase === "connected" && (call.talking ? " · talking" : "")}
        </span>
        <a class="voice-bar-channel" href={channelHash(call.channelId)} onClick={props.onNavigate}>
          <Icon name="speaker" size={14} /> {name}
        </a>
      </div>
      <CallButtons call={call} act={act} prefs={prefs} />
    </section>
  );
}
