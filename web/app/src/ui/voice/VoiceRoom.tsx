// A voice channel on screen: who is in it (a card each: who speaks ringed, muted, deafened,
// sharing), the screen the person watches, large, and the call's buttons; or, for someone not
// in it, the button that joins, and why a join did not happen (voice off, the channel full, not
// allowed). Each person's volume is on their card.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Channel, VoiceState } from "../../gen/svc/v1/types_pb";
import type { Api } from "../../lib/api";
import { callChannel, nameOf, othersUnread, voiceRoom } from "../../state/selectors";
import { useStore, type Store } from "../../state/store";
import { ChannelSettingsButton } from "../admin/ChannelHead";
import type { ChannelSettingsCommands } from "../admin/ChannelSettings";
import { Avatar, MenuButton } from "../common";
import { Icon } from "./icons";
import { CallButtons, phaseText, VoiceMarks, VoiceSettings, type VoiceActs } from "./parts";

/** The most people in a voice channel (the server refuses the next). */
const ROOM_MAX = 25;

export type VoiceRoomCommands = VoiceActs & ChannelSettingsCommands;

export function VoiceRoom(props: { store: Store; act: VoiceRoomCommands; api: Api; channel: Channel; onMenu: () => void }) {
  const { store, act, channel } = props;
  const state = useStore(store, "voice", "members", "me", "channels");
  const [watching, setWatching] = useState("");
  const [settings, setSettings] = useState(false);
  const people = voiceRoom(state, channel.id);
  const call = state.call;
  const inCall = !!call && callChannel(state) === channel.id;
  const me = state.me?.id ?? "";
  // The screen watched, while its sharer shares and its video is here.
  const sharer = people.find((v) => v.memberId === watching && v.sharingScreen);
  const screen = inCall && sharer ? call.screens.get(sharer.memberId) : undefined;
  const full = people.length >= ROOM_MAX && !people.some((v) => v.memberId === me);
  const refused = call && call.phase === "ended" && call.channelId === channel.id ? call.message : "";

  const tile = (v: VoiceState) => {
    const name = nameOf(state, v.memberId);
    const mine = v.memberId === me;
    const watchable = inCall && v.sharingScreen && !mine;
    return (
      <li
        key={v.memberId}
        class={`voice-tile${v.speaking ? " speaking" : ""}${watching === v.memberId && screen ? " watched" : ""}`}
        data-member={v.memberId}
        aria-label={[name + (mine ? " (you)" : ""), v.speaking && "speaking", v.deafened ? "deafened" : v.muted && "muted", v.sharingScreen && "sharing their screen"].filter(Boolean).join(", ")}
      >
        <span class="voice-ring">
          <Avatar base={store.base} member={state.members.get(v.memberId)} size={64} />
        </span>
        <span class="voice-tile-name">{name}</span>
        <span class="voice-tile-marks">
          {mine && <span class="tag voice-you">you</span>}
          <VoiceMarks v={v} />
        </span>
        {watchable && (
          <button type="button" class="button voice-watch" aria-label={`Watch ${name}'s screen`} aria-pressed={watching === v.memberId} onClick={() => setWatching(watching === v.memberId ? "" : v.memberId)}>
            <Icon name="screen" size={16} /> {watching === v.memberId ? "Watching" : "Watch"}
          </button>
        )}
        {inCall && !mine && (
          <label class="voice-volume" title={`Volume of ${name}`}>
            <Icon name="speaker" size={14} />
            <input
              type="range"
              min={0}
              max={100}
              step={5}
              value={Math.round((state.voicePrefs.volumes[v.memberId] ?? 1) * 100)}
              aria-label={`Volume of ${name}`}
              onInput={(e) => act.voice.setVolume(v.memberId, Number(e.currentTarget.value) / 100)}
            />
          </label>
        )}
      </li>
    );
  };

  return (
    <section class={`voice-room${screen ? " with-stage" : ""}`} aria-label={`Voice channel ${channel.name}`}>
      <header class="channel-head">
        <MenuButton unread={othersUnread(state, channel.id)} onMenu={props.onMenu} />
        <h2 class="channel-title">
          <span aria-hidden="true" class="hash">
            <Icon name="speaker" />
          </span>
          <span class="channel-name" title={channel.name}>
            {channel.name}
          </span>
        </h2>
        {channel.topic && <p class="channel-topic">{channel.topic}</p>}
        <ChannelSettingsButton store={store} act={act} api={props.api} channel={channel} />
      </header>
      <div class="voice-body">
        {screen && sharer && <Stage stream={screen} name={nameOf(state, sharer.memberId)} onClose={() => setWatching("")} />}
        {people.length === 0 ? (
          <p class="voice-empty muted">Nobody is here yet.</p>
        ) : (
          <ul class="voice-tiles" aria-label={`In ${channel.name}: ${people.length} of ${ROOM_MAX}`}>
            {people.map(tile)}
          </ul>
        )}
      </div>
      <footer class="voice-foot">
        {inCall ? (
          <>
            <p class={`voice-phase phase-${call.phase}`} role="status">
              {phaseText(call)}
              {call.noMic && " · no microphone: you can listen"}
              {call.ptt && call.phase === "connected" && !call.noMic && (call.talking ? " · talking" : " · push to talk")}
            </p>
            <CallButtons call={call} act={act} prefs={state.voicePrefs} big />
          </>
        ) : (
          <>
            {refused && (
              <p class="voice-refused" role="alert">
                {refused}
              </p>
            )}
            {full && <p class="voice-refused">This voice channel is full: {ROOM_MAX} people are in it.</p>}
            <div class="voice-join-row">
              <button type="button" class="button button-primary voice-join" disabled={full || call?.phase === "joining"} onClick={() => void act.voice.join(channel.id)}>
                <Icon name="speaker" size={18} />
                {call?.phase === "joining" ? "Joining…" : call && call.phase !== "ended" ? "Switch to this channel" : "Join voice"}
              </button>
              <button type="button" class="icon-button" aria-label="Voice settings" title="Voice settings" onClick={() => setSettings(true)}>
                <Icon name="settings" />
              </button>
            </div>
            {settings && <VoiceSettings act={act} prefs={state.voicePrefs} onClose={() => setSettings(false)} />}
          </>
        )}
      </footer>
    </section>
  );
}

/** A shared screen, large. */
function Stage(props: { stream: MediaStream; name: string; onClose: () => void }) {
  const video = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    if (video.current) video.current.srcObject = props.stream;
  }, [props.stream]);
  return (
    <figure class="voice-stage">
      <video ref={video} class="voice-screen" autoplay playsInline muted aria-label={`${props.name}'s screen`} />
      <figcaption class="voice-stage-bar">
        <span class="voice-stage-name">{props.name}'s screen</span>
        <button type="button" class="icon-button" aria-label="Full screen" title="Full screen" onClick={() => void video.current?.requestFullscreen?.().catch(() => undefined)}>
          <Icon name="expand" />
        </button>
        <button type="button" class="button" onClick={props.onClose}>
          Stop watching
        </button>
      </figcaption>
    </figure>
  );
}
