// What the screens derive from the State (state/store.ts): names, titles, lists in the order
// they show, counts. Pure functions of the parts of the State they name, so that any screen (and
// a test) can call them with what it has, and no component holds one another needs: a selector
// two screens share lives here, never in either of them.

import { create } from "@bufbuild/protobuf";
import { ChannelKind, MemberRole, ReadStateSchema, type Channel, type Member, type Message, type ReadState, type Report } from "../gen/svc/v1/types_pb";
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
