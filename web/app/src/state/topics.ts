// What changed in a session, named after the part of the state it covers: components listen
// for the topics of what they show (lib/emitter, useTopics), and state/reducer.ts, the outbox,
// the notice board and the message windows emit them. A new part of the state gets its topic
// here, and tsc then checks every emit and every listener against this list.

export type Topic =
  /** State.status, statusText, online, removed: which screen shows, and the connection. */
  | "status"
  /** State.info: the community's card and settings. */
  | "info"
  /** State.me: the signed-in member. */
  | "me"
  /** State.members (presence included), roles, muted, blocked. */
  | "members"
  /** State.channels, reads (unread and mention counts), mode. */
  | "channels"
  /** State.typing. */
  | "typing"
  /** State.emoji: the community's custom emoji. */
  | "emoji"
  /** State.previews: link previews. */
  | "previews"
  /** State.pins: the channels' pinned messages. */
  | "pins"
  /** The messages on their way (state/outbox.ts). */
  | "pending"
  /** What the person is told (state/notices.ts). */
  | "notices"
  /** State.slowmode: when the person may send again in channels under slowmode. */
  | "slowmode"
  /** State.openReports, reports: the moderators' reports queue. */
  | "reports"
  /** State.audit: audit entries as they come. */
  | "audit"
  /** The server's plugins changed: the plugins screen loads them again (they are not state). */
  | "plugins"
  | ViewTopic;

/** One message window (state/view.ts): a channel's, by its id, or a thread's, by its root's. */
export type ViewTopic = `view:${string}`;

export function viewTopic(channelOrRootId: string): ViewTopic {
  return `view:${channelOrRootId}`;
}
