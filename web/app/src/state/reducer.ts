// The one writer of a session's State (state/store.ts). An Action is an event of the stream
// (its kind, as events.proto has it) or one of the few changes only this client makes (Local);
// the person's commands (state/commands.ts) give the answers of their calls here as the same
// actions the stream would bring, so that a change shows the same whoever made it. Each change
// emits the topics it touches (state/topics.ts); what it asks of the rest of the session
// (messages to the windows, a notification, loading something again) goes through Effects.
//
// A new event kind: its case below, where it writes the State and emits the topic of what it
// changed. tsc lists every kind not handled (the `satisfies never` at the end).

import type { Event } from "../gen/svc/v1/events_pb";
import type { GetStateResponse } from "../gen/svc/v1/chat_pb";
import type { GetServerInfoResponse } from "../gen/svc/v1/server_pb";
import { AuditAction, ChannelKind, ChannelMode, Presence, type Channel, type LinkPreview, type Member, type Message, type Report, type Role, type VoiceState } from "../gen/svc/v1/types_pb";
import { isModerator } from "../lib/ranks";
import { allClaimed, claimed } from "./claims";
import { pinChanged, pinsFailed, pinsLoaded, pinsLoading } from "./pins";
import { mentionsMe, nextMuteEnd, notifies, readState } from "./selectors";
import type { ListVoiceStatesResponse } from "../gen/svc/v1/voice_pb";
import type { CallView } from "../voice/call";
import type { VoicePrefs } from "../voice/prefs";
import type { Status, WritableState } from "./store";
import type { Topic } from "./topics";

/** How long a typing notice lasts without another (the server's clients send one every 3 s). */
export const TYPING_MS = 6000;

/** How many audit entries that came by the stream the state keeps (the audit screen's live part). */
export const AUDIT_KEPT = 500;

/** The changes only this client makes, beside the stream's events. */
export type Local =
  /** GetState's answer, replacing what is known. */
  | { case: "loaded"; value: GetStateResponse }
  | { case: "status"; value: { status: Status; text: string; removed?: boolean } }
  | { case: "online"; value: boolean }
  /** GetServerInfo's (or UpdateServerSettings') answer. */
  | { case: "info"; value: GetServerInfoResponse }
  /** The custom emoji as GET /emoji lists them. */
  | { case: "emojiList"; value: Map<string, string> }
  | { case: "emojiDeleted"; value: string }
  | { case: "previews"; value: { key: string; previews: LinkPreview[] } }
  /**
   * A channel the person opened, joined, made or changed (a call's answer): held whatever the
   * channel mode, unlike channelCreated and channelUpdated.
   */
  | { case: "channelSaved"; value: Channel }
  /** The roles in a new order (shown before the server has it, and put back if it refuses). */
  | { case: "rolesOrdered"; value: Role[] }
  /** A member as a call answered it (a profile saved, a rank or roles given): presence kept. */
  | { case: "memberSaved"; value: Member }
  /** A typing notice's time is up (TYPING_MS after it came). */
  | { case: "typingEnded"; value: { channelId: string; memberId: string } }
  /** ListPins of a channel: asked, answered (newest pin first), or failed (state/pins.ts). */
  | { case: "pinsLoading"; value: string }
  | { case: "pinsLoaded"; value: { channelId: string; messages: Message[] } }
  | { case: "pinsFailed"; value: { channelId: string; error: string } }
  /** A message of the person's that the server took (SendMessage's answer): slowmode starts. */
  | { case: "sent"; value: Message }
  /** The server said how long to wait before sending in a channel (Retry-After), in ms. */
  | { case: "slowmodeWait"; value: { channelId: string; ms: number } }
  /** A slowmode wait's time is up (slowmodeStarted). */
  | { case: "slowmodeEnded"; value: string }
  /** The person's timeout's time is up (timeoutRunning): its end, as it was set. */
  | { case: "timeoutEnded"; value: bigint }
  /**
   * ListReports' answer (list): the open reports the person may see; since: those the stream
   * brought while it was on its way, which the list may have been read before.
   */
  | { case: "reportsListed"; value: { list: Report[]; since: Report[] } }
  /** The reports of a message resolved (ResolveReport's answer): its message id. */
  | { case: "reportResolved"; value: string }
  /** A change refused because the server's disk is full (true), or one that went through (false). */
  | { case: "diskFull"; value: boolean }
  /** A channel's mute has ended (muteEndsAt's time has come). */
  | { case: "muteEnded"; value: undefined }
  /** ListVoiceStates' answer, replacing who is known to be in voice. */
  | { case: "voiceListed"; value: ListVoiceStatesResponse }
  /** Voice states a call answered (JoinVoice, SetVoiceState), as their events would bring them. */
  | { case: "voiceStates"; value: VoiceState[] }
  /** The person's call as it is now (voice/call.ts); undefined when there is none. */
  | { case: "call"; value: CallView | undefined }
  | { case: "voicePrefs"; value: VoicePrefs }
  /** ClaimMember's answer: the placeholder's history is the member's (as its member_updated says). */
  | { case: "memberClaimed"; value: { placeholderId: string; memberId: string } };

export type Action = Exclude<Event["kind"], { case: undefined }> | Local;

/** What a change asks of the rest of the session (state/session.ts). */
export interface Effects {
  emit(...topics: Topic[]): void;
  /** A new message: to the windows that hold its channel or thread. */
  messageAdded(m: Message): void;
  /** A changed message (an edit, a deletion, reactions, a reply count): to the windows holding it. */
  messageChanged(m: Message): void;
  /** A message of the person's queue reached the server (outbox.ts). */
  arrived(clientId: string): void;
  /** A message that mentions the person (or a DM): a desktop notification. */
  notify(m: Message): void;
  /** GetState again: at once, or soon (several events asking make one call). */
  reload(soon: boolean): void;
  refreshInfo(): void;
  refreshEmoji(): void;
  /** Someone started typing: a typingEnded after TYPING_MS. */
  typingStarted(channelId: string, memberId: string): void;
  /** The person waits until then (Unix ms) to send in a channel: a slowmodeEnded then. */
  slowmodeStarted(channelId: string, until: number): void;
  /** The person is timed out until then (Unix ms): a timeoutEnded then. */
  timeoutRunning(until: bigint): void;
  /** ListReports, for a reportsListed. */
  loadReports(): void;
  /** A muteEnded at atMs (when the next channel's mute ends), in place of the one asked before; 0 for none. */
  muteEndsAt(atMs: number): void;
  /** Who is in voice may be missing something (a voice channel came): ListVoiceStates. */
  reloadVoice(): void;
  /** An imported member was claimed (State.claims): the windows show the member in its place. */
  claimed(): void;
}

/** Applies a change to s. seq is the event's, for the stream's events (0 for local changes). */
export function reduce(s: WritableState, a: Action, fx: Effects, seq = 0n): void {
  switch (a.case) {
    case "messageCreated":
      messageCreated(s, claimed(a.value, s.claims), seq, fx);
      break;
    case "messageUpdated":
    case "messageDeleted": {
      const m = claimed(a.value, s.claims);
      fx.messageChanged(m);
      const pins = s.pins.get(m.channelId);
      if (pins) {
        s.pins.set(m.channelId, pinChanged(pins, m));
        fx.emit("pins");
      }
      break;
    }
    case "pinsLoading":
      s.pins.set(a.value, pinsLoading(s.pins.get(a.value)));
      fx.emit("pins");
      break;
    case "pinsLoaded":
      s.pins.set(a.value.channelId, pinsLoaded(s.pins.get(a.value.channelId), allClaimed(a.value.messages, s.claims)));
      fx.emit("pins");
      break;
    case "pinsFailed":
      s.pins.set(a.value.channelId, pinsFailed(s.pins.get(a.value.channelId), a.value.error));
      fx.emit("pins");
      break;
    case "channelCreated":
    case "channelUpdated":
      if (s.mode === ChannelMode.OPT_IN && a.value.kind === ChannelKind.TEXT && !s.channels.has(a.value.id)) {
        // In OPT_IN mode a text channel's events reach everyone who sees it, joined or not,
        // and nothing in them says which: one the person joined elsewhere (another device,
        // or a channel they made there) and one they only see look alike. The state lists
        // the joined ones.
        fx.reload(true);
        break;
      }
      s.channels.set(a.value.id, a.value);
      fx.emit("channels");
      // Who is in it was not sent to the person, who did not see it.
      if (a.case === "channelCreated" && a.value.kind === ChannelKind.VOICE) fx.reloadVoice();
      break;
    case "channelSaved":
      s.channels.set(a.value.id, a.value);
      fx.emit("channels");
      break;
    case "channelDeleted":
      s.channels.delete(a.value);
      fx.emit("channels");
      for (const v of s.voice.values()) if (v.channelId === a.value) s.voice.delete(v.memberId);
      fx.emit("voice");
      break;
    case "memberJoined":
    case "memberUpdated":
      memberChanged(s, a.value, fx);
      break;
    case "memberLeft":
      s.members.delete(a.value);
      fx.emit("members");
      break;
    case "memberClaimed":
      memberClaimed(s, a.value.placeholderId, a.value.memberId, fx);
      break;
    case "memberSaved": {
      // The presence the stream brought is the live one.
      const old = s.members.get(a.value.id) ?? (a.value.id === s.me?.id ? s.me : undefined);
      memberChanged(s, { ...a.value, presence: old?.presence ?? a.value.presence }, fx);
      break;
    }
    case "readState":
      s.reads.set(a.value.channelId, a.value);
      fx.emit("channels");
      break;
    case "typing": {
      const { channelId, memberId, threadRootId } = a.value;
      if (memberId === s.me?.id) break;
      let map = s.typing.get(channelId);
      if (!map) s.typing.set(channelId, (map = new Map()));
      map.set(memberId, { until: Date.now() + TYPING_MS, thread: threadRootId });
      fx.emit("typing");
      fx.typingStarted(channelId, memberId);
      break;
    }
    case "typingEnded": {
      const t = s.typing.get(a.value.channelId)?.get(a.value.memberId);
      if (t && t.until <= Date.now()) stopTyping(s, a.value.channelId, a.value.memberId, fx);
      break;
    }
    case "presence":
      presence(s, a.value.memberId, a.value.presence);
      fx.emit("members");
      break;
    case "presenceBatch":
      a.value.changes.forEach((c) => presence(s, c.memberId, c.presence));
      fx.emit("members");
      break;
    case "roleUpdated": {
      const id = a.value.id;
      s.roles = [...s.roles.filter((r) => r.id !== id), a.value].sort((x, y) => x.position - y.position);
      fx.emit("members");
      break;
    }
    case "roleDeleted":
      s.roles = s.roles.filter((r) => r.id !== a.value);
      fx.emit("members");
      break;
    case "rolesOrdered":
      s.roles = a.value;
      fx.emit("members");
      break;
    case "channelModeChanged":
      // Which channels each member is in may have changed: load the state again.
      s.mode = a.value;
      fx.reload(false);
      break;
    case "serverUpdated":
      fx.refreshInfo();
      break;
    case "info":
      s.info = a.value;
      fx.emit("info");
      break;
    case "emojiChanged":
      fx.refreshEmoji();
      break;
    case "emojiList":
      s.emoji = a.value;
      fx.emit("emoji");
      break;
    case "emojiDeleted":
      s.emoji = new Map([...s.emoji].filter(([name]) => name !== a.value));
      fx.emit("emoji");
      break;
    case "previews":
      s.previews.set(a.value.key, a.value.previews);
      fx.emit("previews");
      break;
    case "pluginsChanged":
      fx.emit("plugins");
      break;
    case "memberBlocked":
      s.blocked.add(a.value);
      fx.emit("members");
      break;
    case "memberUnblocked":
      s.blocked.delete(a.value);
      fx.emit("members");
      break;
    case "memberMuted":
      s.muted.add(a.value);
      fx.emit("members");
      break;
    case "memberUnmuted":
      s.muted.delete(a.value);
      fx.emit("members");
      break;
    case "loaded": {
      const st = a.value;
      s.me = st.me;
      s.members = new Map(st.members.map((m) => [m.id, m]));
      if (st.me) s.members.set(st.me.id, st.me);
      // A claim under way: the placeholder is its member's already.
      for (const m of st.members) if (m.claimedBy) memberClaimed(s, m.id, m.claimedBy, fx);
      s.channels = new Map(st.channels.map((c) => [c.id, c]));
      s.roles = st.roles;
      s.mode = st.channelMode;
      s.reads = new Map(st.readStates.map((r) => [r.channelId, r]));
      s.muted = new Set(st.mutedMemberIds);
      s.blocked = new Set(st.blockedMemberIds);
      // The pins may have changed while the stream was away: the screens load them again.
      s.pins = new Map();
      if (st.me) timeoutRunning(st.me, fx);
      s.openReports = st.openReports;
      s.reports = new Map();
      // Which reports are open, so that one replaced is not counted again and a resolution
      // elsewhere (an audit entry, by message) takes off the right number.
      if (st.openReports > 0) fx.loadReports();
      voiceListed(s, st.voiceStates, st.voiceVersion);
      fx.emit("channels", "members", "me", "pins", "reports", "voice");
      break;
    }
    case "voiceListed":
      voiceListed(s, a.value.states, a.value.version);
      fx.emit("voice");
      break;
    case "voiceState":
      if (voiceChanged(s, a.value)) fx.emit("voice");
      break;
    case "voiceStates":
      if (a.value.map((v) => voiceChanged(s, v)).some(Boolean)) fx.emit("voice");
      break;
    case "call":
      s.call = a.value;
      fx.emit("voice");
      break;
    case "voicePrefs":
      s.voicePrefs = a.value;
      fx.emit("voice");
      break;
    case "status":
      s.status = a.value.status;
      s.statusText = a.value.text;
      if (a.value.removed !== undefined) s.removed = a.value.removed;
      fx.emit("status");
      break;
    case "online":
      s.lost = !a.value && (s.online || s.lost);
      s.online = a.value;
      fx.emit("status");
      break;
    // Community safety: slowmode, the person's timeout, reports and the audit log.
    case "sent":
    case "slowmodeWait":
    case "slowmodeEnded":
      slowmode(s, a, fx);
      break;
    case "timeoutEnded":
      if (s.me && s.me.timedOutUntilMs === a.value) memberChanged(s, { ...s.me, timedOutUntilMs: 0n }, fx);
      break;
    case "reportFiled":
    case "reportsListed":
    case "reportResolved":
      reports(s, a, fx);
      break;
    case "auditAppended":
      s.audit = [...s.audit.slice(-(AUDIT_KEPT - 1)), a.value];
      fx.emit("audit");
      if (a.value.action === AuditAction.REPORT_RESOLVED && a.value.messageId) reports(s, { case: "reportResolved", value: a.value.messageId }, fx);
      break;
    case "notificationPrefs":
      // GetNotificationPrefs' or SetNotificationPrefs' answer, or a change from another device.
      s.prefs = a.value;
      fx.emit("prefs");
      fx.muteEndsAt(nextMuteEnd(s, Date.now()));
      break;
    case "muteEnded":
      fx.emit("prefs");
      fx.muteEndsAt(nextMuteEnd(s, Date.now()));
      break;
    case "diskFull":
      if (s.diskFull === a.value) break;
      s.diskFull = a.value;
      fx.emit("disk");
      break;
    // The stream's own (state/session.ts reads them), and what no screen shows yet.
    case "heartbeat":
    case "resync":
      break;
    default:
      a satisfies never;
  }
}

function messageCreated(s: WritableState, m: Message, seq: bigint, fx: Effects): void {
  const ch = s.channels.get(m.channelId);
  if (ch && seq > ch.lastMessageSeq) ch.lastMessageSeq = seq;
  const me = s.me?.id ?? "";
  if (m.authorId === me) {
    // Sent from here or another device: what came before it is read.
    const rs = readState(s, m.channelId);
    if (m.createdSeq > rs.lastReadSeq) s.reads.set(m.channelId, { ...rs, lastReadSeq: m.createdSeq, unreadCount: 0, mentionCount: 0 });
    fx.arrived(m.clientId);
  } else if (!s.muted.has(m.authorId) && !s.blocked.has(m.authorId)) {
    const rs = readState(s, m.channelId);
    if (m.createdSeq > rs.lastReadSeq) {
      const mentioned = mentionsMe(m, me) || ch?.kind === ChannelKind.DM;
      s.reads.set(m.channelId, {
        ...rs,
        unreadCount: rs.unreadCount + (m.threadRootId ? 0 : 1),
        mentionCount: rs.mentionCount + (mentioned ? 1 : 0),
      });
      if (notifies(s, m.channelId, mentioned, Date.now())) fx.notify(m);
    }
  }
  stopTyping(s, m.channelId, m.authorId, fx);
  fx.messageAdded(m);
  fx.emit("channels");
  if (m.threadRootId) fx.emit("threads");
}

function memberChanged(s: WritableState, m: Member, fx: Effects): void {
  if (m.claimedBy) return memberClaimed(s, m.id, m.claimedBy, fx);
  const old = s.members.get(m.id);
  // Logged member events carry no presence: keep the live one.
  if (old && m.presence === Presence.UNSPECIFIED) m = { ...m, presence: old.presence };
  s.members.set(m.id, m);
  if (m.id === s.me?.id) {
    s.me = m;
    timeoutRunning(m, fx);
    fx.emit("me");
  }
  fx.emit("members");
}

/**
 * A placeholder being claimed (state/claims.ts): it leaves the member lists, and the member
 * takes its place in the messages held (the pins here, the windows through Effects).
 */
function memberClaimed(s: WritableState, placeholderId: string, memberId: string, fx: Effects): void {
  if (s.claims.get(placeholderId) === memberId && !s.members.has(placeholderId)) return;
  s.claims.set(placeholderId, memberId);
  s.members.delete(placeholderId);
  for (const [id, p] of s.pins) s.pins.set(id, { ...p, messages: allClaimed(p.messages, s.claims) });
  fx.claimed();
  fx.emit("members", "pins");
}

/** A timeout of the person's that is running ends by itself: no event says so. */
function timeoutRunning(me: Member, fx: Effects): void {
  if (me.timedOutUntilMs > BigInt(Date.now())) fx.timeoutRunning(me.timedOutUntilMs);
}

/**
 * Slowmode's wait in a channel: from a send the server took (the channel's slowmode_s, for a
 * member below moderator), or as long as a refusal said (Retry-After), until its time is up.
 */
function slowmode(s: WritableState, a: Extract<Action, { case: "sent" | "slowmodeWait" | "slowmodeEnded" }>, fx: Effects): void {
  if (a.case === "slowmodeEnded") {
    const until = s.slowmode.get(a.value);
    if (until !== undefined && until <= Date.now()) {
      s.slowmode.delete(a.value);
      fx.emit("slowmode");
    }
    return;
  }
  const channelId = a.value.channelId;
  const every = s.channels.get(channelId)?.slowmodeS ?? 0;
  if (every <= 0 || isModerator(s)) return;
  const until = Date.now() + (a.case === "sent" ? every * 1000 : a.value.ms);
  s.slowmode.set(channelId, until);
  fx.emit("slowmode");
  fx.slowmodeStarted(channelId, until);
}

/**
 * The open reports: counted from GetState, each new one that comes added (one filed again is
 * replaced, not counted twice), those of a message taken away when it is resolved, here or by
 * another moderator (their audit entry).
 */
function reports(s: WritableState, a: Extract<Action, { case: "reportFiled" | "reportsListed" | "reportResolved" }>, fx: Effects): void {
  switch (a.case) {
    case "reportFiled":
      if (!s.reports.has(a.value.id)) s.openReports++;
      s.reports.set(a.value.id, a.value);
      break;
    case "reportsListed":
      s.reports = new Map([...a.value.list, ...a.value.since].map((r) => [r.id, r]));
      s.openReports = s.reports.size;
      break;
    case "reportResolved":
      for (const [id, r] of s.reports) {
        if (r.message?.id !== a.value) continue;
        s.reports.delete(id);
        s.openReports = Math.max(0, s.openReports - 1);
      }
      break;
  }
  fx.emit("reports");
}

function presence(s: WritableState, id: string, p: Presence): void {
  const m = s.members.get(id);
  if (m) s.members.set(id, { ...m, presence: p });
  if (s.me && id === s.me.id) s.me = { ...s.me, presence: p };
}

function stopTyping(s: WritableState, channelId: string, memberId: string, fx: Effects): void {
  if (s.typing.get(channelId)?.delete(memberId)) fx.emit("typing");
}

function voiceListed(s: WritableState, states: VoiceState[], version: bigint): void {
  s.voice = new Map(states.filter((v) => v.joined).map((v) => [v.memberId, v]));
  s.voiceVersion = version;
  s.voiceSeen.clear();
}

/**
 * A member's voice state, if newer than what is known of them: versions grow with every change
 * on the server, and a state at or below the last list's version is in it already. Per member,
 * since a call's answer may come before the events of others that are older than it.
 */
function voiceChanged(s: WritableState, v: VoiceState): boolean {
  if (v.version <= (s.voiceSeen.get(v.memberId) ?? s.voiceVersion)) return false;
  s.voiceSeen.set(v.memberId, v.version);
  if (v.joined) s.voice.set(v.memberId, v);
  else if (s.voice.get(v.memberId)?.channelId === v.channelId) s.voice.delete(v.memberId);
  return true;
}
