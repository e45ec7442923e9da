// What the screens derive from the State (state/store.ts): names, titles, lists in the order
// they show, counts. Pure functions of the parts of the State they name, so that any screen (and
// a test) can call them with what it has, and no component holds one another needs: a selector
// two screens share lives here, never in either of them.

import { create } from "@bufbuild/protobuf";
import { ChannelKind, ReadStateSchema, type Channel, type Message, type ReadState, type VoiceState } from "../gen/svc/v1/types_pb";
import type { RenderContext } from "../lib/markdown";
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

/** Who is in a voice channel, in the order they joined. */
export function voiceRoom(s: Pick<State, "voice">, channelId: string): VoiceState[] {
  return [...s.voice.values()].filter((v) => v.channelId === channelId).sort((a, b) => Number(a.joinedAtMs - b.joinedAtMs));
}

/** The voice channel the person's call is in, while it is on (not over). */
export function callChannel(s: Pick<State, "call">): string {
  return s.call && s.call.phase !== "ended" ? s.call.channelId : "";
}
