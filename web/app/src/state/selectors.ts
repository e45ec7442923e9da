// What the screens derive from the State (state/store.ts): names, titles, lists in the order
// they show, counts. Pure functions of the parts of the State they name, so that any screen (and
// a test) can call them with what it has, and no component holds one another needs: a selector
// two screens share lives here, never in either of them.

import { create } from "@bufbuild/protobuf";
import {
  ChannelKind,
  MemberRole,
  NotificationPrefsSchema,
  NotifyLevel,
  Presence,
  ReadStateSchema,
  type Channel,
  type ChannelNotificationPrefs,
  type Member,
  type Message,
  type NotificationPrefs,
  type ReadState,
  type Report,
  type VoiceState,
} from "../gen/svc/v1/types_pb";
import { mentions, type RenderContext } from "../lib/markdown";
import { atLeast, isModerator } from "../lib/ranks";
import type { State } from "./store";

/** Previews belong to a message as edited: an edit may change its links. */
export function previewKey(m: Message): string {
  return m.id + "/" + m.editedAtMs;
}

/** A channel's read state (nothing read, nothing counted, when the server has sent none). */
export function readState(s: Pick<State, "reads">, channelId: string): ReadState {
  return s.reads.get(channelId) ?? create(ReadStateSchema, { channelId });
}

/** A member's name as shown: the display name, else the username. */
export function nameOf(s: Pick<State, "members">, id: string): string {
  const m = s.members.get(id);
  return m ? m.displayName || m.username : "someone who left";
}

/** A member's name for mentions: undefined for someone not (or no longer) a member. */
export function memberName(s: Pick<State, "members">, id: string): string | undefined {
  return s.members.has(id) ? nameOf(s, id) : undefined;
}

export function idOfUsername(s: Pick<State, "members">, username: string): string | undefined {
  for (const m of s.members.values()) if (m.username === username) return m.id;
  return undefined;
}

/** A channel's name as the sidebar shows it: #name, or the other members of a DM. */
export function channelTitle(s: Pick<State, "members" | "me">, c: Channel): string {
  if (c.kind !== ChannelKind.DM) return c.name;
  const others = c.memberIds.filter((id) => id !== s.me?.id);
  if (others.length === 0) return nameOf(s, s.me?.id ?? "") + " (you)";
  return others.map((id) => nameOf(s, id)).join(", ");
}

/** Who is typing in a channel (or one of its threads), by name. */
export function typists(s: Pick<State, "typing" | "members">, channelId: string, thread = ""): string[] {
  const out: string[] = [];
  s.typing.get(channelId)?.forEach((t, id) => {
    if (t.thread === thread && t.until > Date.now()) out.push(nameOf(s, id));
  });
  return out;
}

/** Channels in sidebar order: category, position, name; categories by name, none first. */
export function sortedChannels(s: Pick<State, "channels">): Channel[] {
  return [...s.channels.values()]
    .filter((c) => c.kind !== ChannelKind.DM)
    .sort((a, b) => a.category.localeCompare(b.category) || a.position - b.position || a.name.localeCompare(b.name));
}

/** How many channels other than current have something unread (the phone's menu button). */
export function othersUnread(s: Pick<State, "channels" | "reads">, current: string): number {
  let n = 0;
  for (const c of s.channels.values()) {
    if (c.id === current) continue;
    const rs = readState(s, c.id);
    if (rs.unreadCount + rs.mentionCount > 0) n++;
  }
  return n;
}

/** Unread messages in all channels (the tab's title). */
export function unreadTotal(s: Pick<State, "channels" | "reads">): number {
  let n = 0;
  for (const c of s.channels.values()) n += readState(s, c.id).unreadCount;
  return n;
}

/** DMs, the most recently active first. */
export function sortedDMs(s: Pick<State, "channels">): Channel[] {
  return [...s.channels.values()]
    .filter((c) => c.kind === ChannelKind.DM)
    .sort((a, b) => (b.lastMessageSeq > a.lastMessageSeq ? 1 : b.lastMessageSeq < a.lastMessageSeq ? -1 : 0));
}

/** What lib/markdown needs to render a text: member names, the person's id, custom emoji. */
export function markdownContext(s: Pick<State, "members" | "me" | "emoji">, onMention?: RenderContext["onMention"]): RenderContext {
  return {
    memberName: (id) => memberName(s, id),
    meId: s.me?.id ?? "",
    emoji: s.emoji,
    onMention,
  };
}

/**
 * How a DM shows in the sidebar when the person blocked or muted its other member: a mark, and
 * a word in the link's name, since that member's messages add nothing to its counts.
 */
export function quietOf(s: Pick<State, "blocked" | "muted">, others: string[]): { label: string; icon: string; title: string } | undefined {
  if (others.length !== 1) return undefined;
  const id = others[0];
  if (s.blocked.has(id)) return { label: "blocked", icon: "⛔", title: "Blocked: nothing can be sent here, and their messages are not counted" };
  if (s.muted.has(id)) return { label: "muted", icon: "🔇", title: "Muted: their messages are not counted as unread" };
  return undefined;
}

/** Whether the server refused the person's login because it is banned (ui/moderation/Banned.tsx). */
export function isBanned(s: Pick<State, "statusText">): boolean {
  return /\bbanned\b/i.test(s.statusText);
}

/**
 * Whether a message is a mention of the person: their <@id> in its text; and, from someone
 * else, a reply to one of theirs or a group mention that counted (EXTENSIONS.md 1 and 3: the
 * server says whether <!here> and <!everyone> counted; whether the person was online for an
 * <!here> it does not say, so being in the channel is taken as reached).
 */
export function mentionsMe(m: Message, meId: string | undefined): boolean {
  if (!meId) return false;
  if (mentions(m.text, meId)) return true;
  if (m.authorId === meId) return false;
  return m.mentionsEveryone || m.mentionsHere || m.replyTo?.authorId === meId;
}

/** Who may pin in a channel (EXTENSIONS.md 2): any member of a DM, else moderators and higher. */
export function canPin(s: Pick<State, "me" | "members" | "channels">, channelId: string): boolean {
  const ch = s.channels.get(channelId);
  if (!ch) return false;
  return ch.kind === ChannelKind.DM || isModerator(s);
}

/**
 * Whether the person's @here and @everyone count in a channel (EXTENSIONS.md 3): anyone's in a
 * DM, elsewhere from the server's group_mention_rank up (moderators while it was never set).
 */
export function mayMentionGroups(s: Pick<State, "me" | "members" | "channels" | "info">, channelId: string): boolean {
  if (s.channels.get(channelId)?.kind === ChannelKind.DM) return true;
  return atLeast(s, s.info?.groupMentionRank || MemberRole.MODERATOR);
}

/** When a member's timeout ends (Unix ms), or 0 when they are not timed out. */
export function timedOutUntil(m: Member | undefined, now = Date.now()): number {
  const until = Number(m?.timedOutUntilMs ?? 0n);
  return until > now ? until : 0;
}

/** Why the person cannot send in a channel now, and until when (Unix ms): a timeout, or slowmode. */
export type SendHold = { kind: "timeout" | "slowmode"; until: number };

export function sendHold(s: Pick<State, "me" | "members" | "channels" | "slowmode">, channelId: string, now = Date.now()): SendHold | undefined {
  const out = timedOutUntil(s.me, now);
  if (out) return { kind: "timeout", until: out };
  const until = s.slowmode.get(channelId) ?? 0;
  if (until > now && (s.channels.get(channelId)?.slowmodeS ?? 0) > 0 && !isModerator(s)) return { kind: "slowmode", until };
  return undefined;
}

/** The open reports known, newest first. */
export function sortedReports(s: Pick<State, "reports">): Report[] {
  return [...s.reports.values()].sort((a, b) => Number(b.reportedAtMs - a.reportedAtMs));
}

/**
 * Who is in a channel, as the member list beside it shows them: a DM's or a private channel's
 * members; for a text channel, the members who see it (its roles' holders, admins and the owner,
 * when roles limit it; everyone otherwise, in OPT_IN mode too, where anyone may read it). Online
 * first, then away, then offline (all alike while the connection is lost), by name within each.
 */
export function channelMembers(s: Pick<State, "members" | "lost">, c: Channel): Member[] {
  let list: Member[];
  if (c.kind === ChannelKind.DM || c.kind === ChannelKind.PRIVATE) {
    list = c.memberIds.map((id) => s.members.get(id)).filter((m): m is Member => !!m);
  } else if (c.roleIds.length > 0) {
    list = [...s.members.values()].filter((m) => m.role >= MemberRole.ADMIN || m.roleIds.some((r) => c.roleIds.includes(r)));
  } else {
    list = [...s.members.values()];
  }
  const rank = (m: Member) => (s.lost ? 0 : m.presence === Presence.ONLINE ? 0 : m.presence === Presence.AWAY ? 1 : 2);
  const name = (m: Member) => m.displayName || m.username;
  return list.sort((a, b) => rank(a) - rank(b) || name(a).localeCompare(name(b)));
}

// ---- notifications (EXTENSIONS.md 7) ----

/** A channel's own notification preferences; none when it follows the person's. */
export function channelPrefs(s: Pick<State, "prefs">, channelId: string): ChannelNotificationPrefs | undefined {
  return s.prefs?.channels.find((c) => c.channelId === channelId);
}

/** Until when a channel is muted for the person at now: -1 until unmuted, a time, or 0 (not muted). */
export function mutedUntil(s: Pick<State, "prefs">, channelId: string, now: number): number {
  const until = Number(channelPrefs(s, channelId)?.mutedUntilMs ?? 0n);
  return until === -1 || until > now ? until : 0;
}

/** The person's own level (MENTIONS until they choose). */
export function memberLevel(s: Pick<State, "prefs">): NotifyLevel {
  return s.prefs?.level || NotifyLevel.MENTIONS;
}

/** The level that applies in a channel: its own, else the person's. */
export function notifyLevel(s: Pick<State, "prefs">, channelId: string): NotifyLevel {
  return channelPrefs(s, channelId)?.level || memberLevel(s);
}

/**
 * Whether a message that reaches the person in a channel makes a notification: never in a
 * muted channel or one with level NONE, every message with ALL, else what mentions them (a DM's
 * messages count as mentions).
 */
export function notifies(s: Pick<State, "prefs">, channelId: string, mentioned: boolean, now: number): boolean {
  if (mutedUntil(s, channelId, now) !== 0) return false;
  const level = notifyLevel(s, channelId);
  return level === NotifyLevel.ALL || (level === NotifyLevel.MENTIONS && mentioned);
}

/** The next time a channel's mute ends, after now; 0 when none will. */
export function nextMuteEnd(s: Pick<State, "prefs">, now: number): number {
  let next = 0;
  for (const c of s.prefs?.channels ?? []) {
    const until = Number(c.mutedUntilMs);
    if (until > now && (next === 0 || until < next)) next = until;
  }
  return next;
}

/** A change of the preferences: the person's own settings, and one channel's. */
export type PrefsChange = {
  level?: NotifyLevel;
  hideContent?: boolean;
  email?: boolean;
  channel?: { id: string; level?: NotifyLevel; mutedUntilMs?: number };
};

/**
 * The preferences with a change made, as SetNotificationPrefs takes the whole of them: the
 * mutes that have ended and the channels the person no longer has are left out (the server
 * refuses both), and so are the channel entries that say nothing.
 */
export function prefsWith(s: Pick<State, "prefs" | "channels">, change: PrefsChange, now: number): NotificationPrefs {
  const p = s.prefs;
  const entries = (p?.channels ?? []).filter((c) => s.channels.has(c.channelId)).map((c) => ({ channelId: c.channelId, level: c.level, mutedUntilMs: BigInt(mutedUntil(s, c.channelId, now)) }));
  const ch = change.channel;
  if (ch) {
    let entry = entries.find((e) => e.channelId === ch.id);
    if (!entry) entries.push((entry = { channelId: ch.id, level: NotifyLevel.UNSPECIFIED, mutedUntilMs: 0n }));
    if (ch.level !== undefined) entry.level = ch.level;
    if (ch.mutedUntilMs !== undefined) entry.mutedUntilMs = BigInt(ch.mutedUntilMs);
  }
  return create(NotificationPrefsSchema, {
    level: change.level ?? memberLevel(s),
    hideContent: change.hideContent ?? p?.hideContent ?? false,
    email: change.email ?? p?.email ?? false,
    channels: entries.filter((e) => e.level !== NotifyLevel.UNSPECIFIED || e.mutedUntilMs !== 0n),
  });
}

/**
 * The app's badge: the mentions of the person, and the unread messages of their DMs, in the
 * channels not muted.
 */
export function badgeCount(s: Pick<State, "channels" | "reads" | "prefs">, now: number): number {
  let n = 0;
  for (const c of s.channels.values()) {
    if (mutedUntil(s, c.id, now) !== 0) continue;
    const rs = readState(s, c.id);
    n += c.kind === ChannelKind.DM ? Math.max(rs.unreadCount, rs.mentionCount) : rs.mentionCount;
  }
  return n;
}

/** Who is in a voice channel, in the order they joined. */
export function voiceRoom(s: Pick<State, "voice">, channelId: string): VoiceState[] {
  return [...s.voice.values()].filter((v) => v.channelId === channelId).sort((a, b) => Number(a.joinedAtMs - b.joinedAtMs));
}

/** The voice channel the person's call is in, while it is on (not over). */
export function callChannel(s: Pick<State, "call">): string {
  return s.call && s.call.phase !== "ended" ? s.call.channelId : "";
}
