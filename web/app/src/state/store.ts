// The community as one session knows it (State), and what the screens read it through (Store).
// state/reducer.ts is the only code that writes a State: the stream's events and the answers of
// the person's commands (state/commands.ts) both reach it as Actions. Everything else gets the
// State read-only (ReadonlyMap, ReadonlySet, readonly fields), so tsc refuses a write anywhere
// else. What is derived from it (names, sorted lists, counts) is in state/selectors.ts.

import type { GetServerInfoResponse } from "../gen/svc/v1/server_pb";
import { ChannelMode, type AuditEntry, type Channel, type LinkPreview, type Member, type NotificationPrefs, type ReadState, type Report, type Role, type VoiceState } from "../gen/svc/v1/types_pb";
import { useTopics, type Topics } from "../lib/emitter";
import type { CallView } from "../voice/call";
import type { VoicePrefs } from "../voice/prefs";
import type { Notice } from "./notices";
import type { Pending } from "./outbox";
import type { PinList } from "./pins";
import type { PushState } from "./push";
import type { Topic } from "./topics";
import type { MessageView } from "./view";

/** Which screen the session calls for. */
export type Status = "loading" | "ready" | "signed-out" | "needs-join" | "unreachable";

/** Someone typing, until when (Unix ms), and where: "" for the channel, else a thread's root. */
export type Typist = { until: number; thread: string };

/** The state as reducer.ts writes it; see State. */
export type WritableState = {
  status: Status;
  /** Why the status is what it is (the server's refusal), or "". */
  statusText: string;
  /** The event stream is open. */
  online: boolean;
  /** The stream was open and is not now: what the session knows may be out of date (presence). */
  lost: boolean;
  /** The person was a member in this session and is no longer (kicked, banned, left elsewhere). */
  removed: boolean;
  info?: GetServerInfoResponse;
  me?: Member;
  members: Map<string, Member>;
  channels: Map<string, Channel>;
  /** The custom roles, by position. */
  roles: Role[];
  mode: ChannelMode;
  /** Read states by channel id: what is unread, and the mentions. */
  reads: Map<string, ReadState>;
  muted: Set<string>;
  blocked: Set<string>;
  /** Custom emoji: name to image URL. */
  emoji: Map<string, string>;
  /** Link previews by message and edit (selectors.ts, previewKey). */
  previews: Map<string, LinkPreview[]>;
  /** Who is typing, by channel, then by member. */
  typing: Map<string, Map<string, Typist>>;
  /** The pinned messages of the channels whose pins were asked for (state/pins.ts). */
  pins: Map<string, PinList>;
  /**
   * When the person may send again in a channel under slowmode (Unix ms, this browser's clock),
   * by channel id: set by a send the server took, or by its refusal's Retry-After.
   */
  slowmode: Map<string, number>;
  /** How many reports are open for the person (moderators: GetState, then report_filed). */
  openReports: number;
  /** The open reports known, by id (ListReports, then report_filed; resolved ones leave). */
  reports: Map<string, Report>;
  /** The audit entries the stream brought in this session, oldest first (at most AUDIT_KEPT). */
  audit: AuditEntry[];
  /** The person's notification preferences, once loaded (EXTENSIONS.md 7). */
  prefs?: NotificationPrefs;
  /** The server refused the latest change because its disk is full, and none went through since. */
  diskFull: boolean;
  /** Who is in a voice channel, by member id (a member is in one at a time). */
  voice: Map<string, VoiceState>;
  /** The voice version of the last GetState or ListVoiceStates: older states are in it. */
  voiceVersion: bigint;
  /** The version of each member's newest voice state since then. */
  voiceSeen: Map<string, bigint>;
  /** The person's own call (voice/call.ts), while there is one or its end is shown. */
  call?: CallView;
  /** Push-to-talk and volumes, as kept in this browser. */
  voicePrefs: VoicePrefs;
  /** Imported members claimed in this session: placeholder id to member id (state/claims.ts). */
  claims: Map<string, string>;
};

type ReadOnly<T> =
  T extends Map<infer K, infer V> ? ReadonlyMap<K, ReadOnly<V>> : T extends Set<infer V> ? ReadonlySet<V> : T extends (infer E)[] ? readonly E[] : T;

/** The state as everything but reducer.ts sees it: nothing in it can be changed from there. */
export type State = { readonly [K in keyof WritableState]: ReadOnly<WritableState[K]> };

export function emptyState(): WritableState {
  return {
    status: "loading",
    statusText: "",
    online: false,
    lost: false,
    removed: false,
    members: new Map(),
    channels: new Map(),
    roles: [],
    mode: ChannelMode.ROLES,
    reads: new Map(),
    muted: new Set(),
    blocked: new Set(),
    emoji: new Map(),
    previews: new Map(),
    typing: new Map(),
    pins: new Map(),
    slowmode: new Map(),
    openReports: 0,
    reports: new Map(),
    audit: [],
    diskFull: false,
    voice: new Map(),
    voiceVersion: 0n,
    voiceSeen: new Map(),
    voicePrefs: { ptt: false, pttKey: "Backquote", volumes: {} },
    claims: new Map(),
  };
}

/**
 * What a screen reads: the State, the messages on their way, the notices, the message windows,
 * and the topics to follow them by (useStore). state/session.ts's Session is the one Store.
 */
export interface Store {
  /** The server's URL (the origin of its files and pictures). */
  readonly base: string;
  readonly state: State;
  /** The messages on their way, in the order they go. */
  readonly pending: readonly Pending[];
  /** What the person is told, oldest first. */
  readonly notices: readonly Notice[];
  /** This device's push subscription. */
  readonly push: PushState;
  readonly em: Topics<Topic>;
  /** The window onto a channel's messages (threadRootId ""), or a thread's; make makes it. */
  view(channelId: string, threadRootId: string, make: true): MessageView;
  view(channelId: string, threadRootId: string, make: boolean): MessageView | undefined;
}

/** The State, re-rendering the calling component whenever one of topics is emitted. */
export function useStore(store: Store, ...topics: Topic[]): State {
  useTopics(store.em, ...topics);
  return store.state;
}
