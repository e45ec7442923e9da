// What the person does, as the screens call it: every change to the session's State goes
// through one of these commands. A command calls the server and gives its answer to the
// reducer (state/reducer.ts) as the action the stream would bring, so the change shows at once
// and the same way as when another device makes it; the event, when it comes, changes nothing
// more. Components never write the State (it is read-only to them) and never emit a topic.
//
// Two ways to fail, by who shows the refusal: the commands of the chat (sending, reacting,
// opening a DM...) tell the person themselves (a notice) and resolve to nothing; the commands
// of the forms of the community pages throw the server's refusal, which the form shows beside
// itself (ui/admin/parts.tsx, useAction). Each says which.
//
// A screen's own lists (invites, bans, the audit log, bots, plugins, search results) are not State:
// the screen loads them and calls the server about them itself (ui/common.tsx, useLoaded).

import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import type { JoinRequestSchema, GetServerInfoResponse, UpdateProfileRequestSchema, UpdateServerSettingsRequestSchema, UpdateRoleRequestSchema } from "../gen/svc/v1/server_pb";
import type {
  AddChannelMembersRequestSchema,
  CreateChannelRequestSchema,
  SetChannelAccessRequestSchema,
  UpdateChannelRequestSchema,
} from "../gen/svc/v1/chat_pb";
import { Presence, type Channel, type Member, type MemberRole, type Message, type NotificationPrefs, type NotifyLevel, type PollInputSchema, type Report, type Role } from "../gen/svc/v1/types_pb";
import { errorText, type Api } from "../lib/api";
import type { ReplyRef, SentFile } from "./drafts";
import type { NoticeBoard, NoticeKind } from "./notices";
import type { Outbox, Pending } from "./outbox";
import type { PushDevice } from "./push";
import type { Action } from "./reducer";
import { prefsWith, previewKey, readState, timedOutUntil, type PrefsChange } from "./selectors";
import type { State } from "./store";
import { VoiceCommands } from "./voice";

/** A channel's new place, as ui/admin/Channels.tsx plans a move. */
export type ChannelMove = { channel: Channel; category: string; position: number };

/** What the commands need of the session (state/session.ts gives it). */
export type CommandHost = {
  readonly api: Api;
  /** The State as it is now. */
  readonly state: State;
  dispatch(a: Action): void;
  readonly outbox: Outbox;
  readonly notices: NoticeBoard;
  /** This device's push subscription. */
  readonly push: PushDevice;
  /** After Join: loads the community and opens the stream; false when that failed. */
  joined(): Promise<boolean>;
  /** The channel on screen, and how a notification's click opens a message. */
  showing(channelId: string, openMessage: (channelId: string, messageId: string) => void): void;
  /** Brings the window of a channel (or a thread) back to its newest messages, if it is open. */
  toLatest(channelId: string, threadRootId: string): void;
  /** Tries to open the event stream again now, rather than after the wait between attempts. */
  reconnectNow(): void;
};

type Init<T extends DescMessage> = MessageInitShape<T>;

export class Commands {
  private typingSent = new Map<string, number>();
  private previewsAsked = new Set<string>();
  private readsInFlight = new Map<string, bigint>();
  /** The channel moves not yet answered, one after another (moveChannels). */
  private moves: Promise<void> = Promise.resolve();
  /** The changes of notification preferences not yet answered, one after another (saveNotifyPrefs). */
  private prefsSaves: Promise<unknown> = Promise.resolve();
  /** Joining, leaving and talking in voice channels (state/voice.ts). */
  readonly voice: VoiceCommands;

  constructor(private readonly host: CommandHost) {
    this.voice = new VoiceCommands({
      get api() {
        return host.api;
      },
      get state() {
        return host.state;
      },
      dispatch: (a) => host.dispatch(a),
      tell: (text, kind) => this.tell(text, kind),
    });
  }

  private get api(): Api {
    return this.host.api;
  }

  private get state(): State {
    return this.host.state;
  }

  private dispatch(a: Action): void {
    this.host.dispatch(a);
  }

  // ---- telling the person ----

  /** Tells the person something (see NoticeBoard.tell). */
  tell(text: string, kind: NoticeKind): void {
    this.host.notices.tell(text, kind);
  }

  /** Takes a notice away (nothing when it has gone already). */
  dismiss(id: number): void {
    this.host.notices.dismiss(id);
  }

  /** Runs a call and tells the person when it fails ("what: the server's reason"). */
  async run<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (e) {
      this.tell(`${what}: ${errorText(e)}`, "error");
      return undefined;
    }
  }

  /** Tries to reach the server again now (the connection banner's "Try now"). */
  reconnectNow(): void {
    this.host.reconnectNow();
  }

  /** The channel on screen (no notification for it while the page has the focus). */
  showing(channelId: string, openMessage: (channelId: string, messageId: string) => void): void {
    this.host.showing(channelId, openMessage);
  }

  // ---- messages ----

  /**
   * Queues a message (answering replyTo); it shows at once and goes when the server can take it.
   * The window it goes to comes back to its end, where the person sees it, from wherever they
   * had scrolled.
   */
  send(channelId: string, threadRootId: string, text: string, attachments: SentFile[], replyTo?: ReplyRef): void {
    this.host.toLatest(channelId, threadRootId);
    this.host.outbox.send(channelId, threadRootId, text, attachments, replyTo);
  }

  retryPending(p: Pending): void {
    this.host.outbox.retry(p);
  }

  dropPending(p: Pending): void {
    this.host.outbox.drop(p);
  }

  /** Tells the others the person is typing, at most every 3 seconds per channel. */
  typingNow(channelId: string, threadRootId: string): void {
    const key = channelId + "/" + threadRootId;
    const now = Date.now();
    // A timed-out member may not type (the server refuses it).
    if ((this.typingSent.get(key) ?? 0) > now - 3000 || timedOutUntil(this.state.me, now)) return;
    this.typingSent.set(key, now);
    this.api.chat.setTyping({ channelId, threadRootId }).catch(() => undefined);
  }

  /**
   * Asks once for the previews of a message's links (again after an edit). The answer is kept
   * even when it has none, so that the message stops keeping a place for one; a failure keeps
   * none either.
   */
  loadPreviews(m: Message): void {
    const key = previewKey(m);
    if (this.previewsAsked.has(key)) return;
    this.previewsAsked.add(key);
    this.api.chat
      .getLinkPreviews({ messageId: m.id })
      .then((res) => this.dispatch({ case: "previews", value: { key, previews: res.previews } }))
      .catch(() => {
        this.previewsAsked.delete(key);
        this.dispatch({ case: "previews", value: { key, previews: [] } });
      });
  }

  /** Marks a channel read up to its newest message, once per new message. */
  markRead(channelId: string): void {
    const ch = this.state.channels.get(channelId);
    if (!ch || this.state.status !== "ready") return;
    const rs = readState(this.state, channelId);
    const seq = ch.lastMessageSeq;
    if (seq <= rs.lastReadSeq && rs.unreadCount === 0 && rs.mentionCount === 0) return;
    if ((this.readsInFlight.get(channelId) ?? -1n) >= seq) return;
    this.readsInFlight.set(channelId, seq);
    const marked = { ...rs, lastReadSeq: seq > rs.lastReadSeq ? seq : rs.lastReadSeq, unreadCount: 0, mentionCount: 0 };
    this.dispatch({ case: "readState", value: marked });
    this.api.chat
      .markRead({ channelId, seq })
      .then((res) => {
        // The answer counts what was unread when the server marked it. The stream brings the
        // same read state, in order with the messages after it: once it or one of them has
        // changed the read state here, the answer is older than what is shown (a message that
        // came meanwhile would lose its unread count).
        if (this.state.reads.get(channelId) !== marked) return;
        if (res.readState && res.readState.lastReadSeq >= marked.lastReadSeq) this.dispatch({ case: "readState", value: res.readState });
      })
      .catch(() => undefined)
      .finally(() => this.readsInFlight.delete(channelId));
  }

  /** Edits a message; true when it is saved (a notice says why not). */
  async edit(m: Message, text: string): Promise<boolean> {
    const res = await this.run("Could not edit the message", () => this.api.chat.editMessage({ messageId: m.id, text }));
    if (res?.message) this.dispatch({ case: "messageUpdated", value: res.message });
    return !!res;
  }

  async remove(m: Message): Promise<void> {
    const res = await this.run("Could not delete the message", () => this.api.chat.deleteMessage({ messageId: m.id }));
    // The answer says it is gone: show it so now, as an edit's answer shows the edit, rather
    // than wait for its event, which a slow or reconnecting stream brings late.
    if (res) this.dispatch({ case: "messageDeleted", value: { ...m, deleted: true, text: "", attachments: [], reactions: [] } });
  }

  /** Adds the person's reaction, or takes it back when they had made it. */
  async react(m: Message, emoji: string): Promise<void> {
    const mine = m.reactions.find((r) => r.emoji === emoji)?.memberIds.includes(this.state.me?.id ?? "");
    const res = await this.run("Could not react", () => this.api.chat.react({ messageId: m.id, emoji, remove: !!mine }));
    if (res?.message) this.dispatch({ case: "messageUpdated", value: res.message });
  }

  // ---- replies, pins and polls (EXTENSIONS.md 1, 2, 4) ----

  /**
   * Sends a poll into a channel; throws the server's refusal (the poll's form shows it). The
   * same clientId for every try of one form: a try whose answer was lost makes no second poll.
   */
  async sendPoll(channelId: string, poll: Init<typeof PollInputSchema>, clientId: string): Promise<void> {
    const res = await this.api.chat.sendMessage({ channelId, poll, clientId });
    if (res.message) this.dispatch({ case: "messageCreated", value: res.message });
  }

  /** Replaces the person's vote in a poll ([] withdraws it); a notice says why not. */
  async vote(m: Message, optionIds: string[]): Promise<void> {
    const res = await this.run("Could not vote", () => this.api.chat.votePoll({ messageId: m.id, optionIds }));
    if (res?.message) this.dispatch({ case: "messageUpdated", value: res.message });
  }

  /** Closes a poll (its author, moderators); a notice says why not. */
  async closePoll(m: Message): Promise<void> {
    const res = await this.run("Could not close the poll", () => this.api.chat.closePoll({ messageId: m.id }));
    if (res?.message) this.dispatch({ case: "messageUpdated", value: res.message });
  }

  /** Pins a message, or unpins a pinned one; a notice says why not (50 pins at most). */
  async togglePin(m: Message): Promise<void> {
    const pinned = m.pinnedAtMs > 0n;
    const res = await this.run<{ message?: Message }>(pinned ? "Could not unpin the message" : "Could not pin the message", () =>
      pinned ? this.api.chat.unpinMessage({ messageId: m.id }) : this.api.chat.pinMessage({ messageId: m.id }),
    );
    if (res?.message) this.dispatch({ case: "messageUpdated", value: res.message });
  }

  /** Loads a channel's pins into the State (State.pins); a failure is kept there to show. */
  async loadPins(channelId: string): Promise<void> {
    if (this.state.pins.get(channelId)?.loaded === false && !this.state.pins.get(channelId)?.error) return;
    this.dispatch({ case: "pinsLoading", value: channelId });
    try {
      const res = await this.api.chat.listPins({ channelId });
      this.dispatch({ case: "pinsLoaded", value: { channelId, messages: res.messages } });
    } catch (e) {
      this.dispatch({ case: "pinsFailed", value: { channelId, error: errorText(e) } });
    }
  }

  // ---- channels ----

  /** Opens (or finds) the DM with these members and returns its id (a notice says why not). */
  async openDM(memberIds: string[]): Promise<string | undefined> {
    const res = await this.run("Could not open the conversation", () => this.api.chat.openDM({ memberIds }));
    if (!res?.channel) return undefined;
    this.dispatch({ case: "channelSaved", value: res.channel });
    return res.channel.id;
  }

  /** Joins a channel (OPT_IN mode); true when joined (a notice says why not). */
  async joinChannel(channelId: string): Promise<boolean> {
    const res = await this.run("Could not join the channel", () => this.api.chat.joinChannel({ channelId }));
    if (!res?.channel) return false;
    this.dispatch({ case: "channelSaved", value: res.channel });
    return true;
  }

  /** Leaves a channel; throws the server's refusal. */
  async leaveChannel(channelId: string): Promise<void> {
    await this.api.chat.leaveChannel({ channelId });
    this.dispatch({ case: "channelDeleted", value: channelId });
  }

  /** Makes a channel; throws the server's refusal. */
  async createChannel(req: Init<typeof CreateChannelRequestSchema>): Promise<Channel | undefined> {
    return this.saved(await this.api.chat.createChannel(req));
  }

  /** Changes a channel's name, topic, category, position or header; throws the server's refusal. */
  async updateChannel(req: Init<typeof UpdateChannelRequestSchema>): Promise<Channel | undefined> {
    return this.saved(await this.api.chat.updateChannel(req));
  }

  /** Who sees a channel, and whether it is a default one; throws the server's refusal. */
  async setChannelAccess(req: Init<typeof SetChannelAccessRequestSchema>): Promise<Channel | undefined> {
    return this.saved(await this.api.chat.setChannelAccess(req));
  }

  /** Adds people to a private channel; throws the server's refusal. */
  async addChannelMembers(req: Init<typeof AddChannelMembersRequestSchema>): Promise<Channel | undefined> {
    return this.saved(await this.api.chat.addChannelMembers(req));
  }

  /** Takes someone out of a private channel; throws the server's refusal. */
  async removeChannelMember(channelId: string, memberId: string): Promise<Channel | undefined> {
    return this.saved(await this.api.chat.removeChannelMember({ channelId, memberId }));
  }

  private saved(res: { channel?: Channel }): Channel | undefined {
    if (res.channel) this.dispatch({ case: "channelSaved", value: res.channel });
    return res.channel;
  }

  /**
   * Moves channels to new places: shown at once, here and in the sidebar; the calls go one
   * after another, in order, after those of the moves before, so the server ends where the
   * screen does. A refusal puts that channel back and rejects with what to tell.
   */
  moveChannels(plan: ChannelMove[]): Promise<void> {
    for (const p of plan) this.dispatch({ case: "channelSaved", value: { ...p.channel, category: p.category, position: p.position } });
    const done = this.moves.then(async () => {
      for (const p of plan) {
        try {
          await this.api.chat.updateChannel({ channelId: p.channel.id, category: p.category, position: p.position });
        } catch (e) {
          const now = this.state.channels.get(p.channel.id);
          if (now) this.dispatch({ case: "channelSaved", value: { ...now, category: p.channel.category, position: p.channel.position } });
          throw new Error(`Could not move #${p.channel.name}: ${errorText(e)}`);
        }
      }
    });
    this.moves = done.catch(() => undefined);
    return done;
  }

  // ---- people ----

  async setAway(away: boolean): Promise<void> {
    await this.run("Could not change your presence", () => this.api.chat.setPresence({ presence: away ? Presence.AWAY : Presence.ONLINE }));
  }

  /** Mutes a member, or unmutes one muted (a notice says why not). */
  async toggleMute(id: string): Promise<void> {
    const on = this.state.muted.has(id);
    const res = await this.run<unknown>("Could not change the mute", () =>
      on ? this.api.server.unmuteMember({ memberId: id }) : this.api.server.muteMember({ memberId: id }),
    );
    if (res) this.dispatch({ case: on ? "memberUnmuted" : "memberMuted", value: id });
  }

  /** Blocks a member, or unblocks one blocked (a notice says why not). */
  async toggleBlock(id: string): Promise<void> {
    const on = this.state.blocked.has(id);
    const res = await this.run<unknown>("Could not change the block", () =>
      on ? this.api.server.unblockMember({ memberId: id }) : this.api.server.blockMember({ memberId: id }),
    );
    if (res) this.dispatch({ case: on ? "memberUnblocked" : "memberBlocked", value: id });
  }

  /** Saves the person's profile; throws the server's refusal. */
  async saveProfile(req: Init<typeof UpdateProfileRequestSchema>): Promise<void> {
    const res = await this.api.server.updateProfile(req);
    if (res.member) this.dispatch({ case: "memberSaved", value: res.member });
  }

  /** Gives a member a rank; throws the server's refusal. */
  async setMemberRole(memberId: string, role: MemberRole): Promise<Member | undefined> {
    return this.memberSaved(await this.api.server.setMemberRole({ memberId, role }));
  }

  /** Sets a member's custom roles; throws the server's refusal. */
  async setMemberRoles(memberId: string, roleIds: string[]): Promise<Member | undefined> {
    return this.memberSaved(await this.api.server.setMemberRoles({ memberId, roleIds }));
  }

  /**
   * Times a member out for durationS seconds, or ends their timeout (0), with a reason for the
   * audit log; throws the server's refusal.
   */
  async timeoutMember(memberId: string, durationS: number, reason: string): Promise<Member | undefined> {
    return this.memberSaved(await this.api.server.timeoutMember({ memberId, durationS: BigInt(durationS), reason }));
  }

  /**
   * Gives an imported placeholder's messages and reactions to a member (admins; it answers when
   * they all are); throws the server's refusal.
   */
  async claimMember(placeholderId: string, memberId: string): Promise<void> {
    await this.api.server.claimMember({ placeholderId, memberId });
    this.dispatch({ case: "memberClaimed", value: { placeholderId, memberId } });
  }

  private memberSaved(res: { member?: Member }): Member | undefined {
    if (res.member) this.dispatch({ case: "memberSaved", value: res.member });
    return res.member;
  }

  /**
   * Joins the community, then loads it and opens the stream; throws Join's refusal, after
   * which the community's card is loaded again (it says whether it is in lockdown, say).
   */
  async join(req: Init<typeof JoinRequestSchema>): Promise<boolean> {
    try {
      await this.api.server.join(req);
    } catch (e) {
      this.api.server
        .getServerInfo({})
        .then((info) => this.dispatch({ case: "info", value: info as GetServerInfoResponse }))
        .catch(() => undefined);
      throw e;
    }
    return this.host.joined();
  }

  // ---- roles ----

  /** Makes a role; throws the server's refusal. */
  async createRole(name: string, color: string): Promise<Role | undefined> {
    return this.roleSaved(await this.api.server.createRole({ name, color }));
  }

  /** Renames or recolours a role; throws the server's refusal. */
  async updateRole(req: Init<typeof UpdateRoleRequestSchema>): Promise<Role | undefined> {
    return this.roleSaved(await this.api.server.updateRole(req));
  }

  private roleSaved(res: { role?: Role }): Role | undefined {
    if (res.role) this.dispatch({ case: "roleUpdated", value: res.role });
    return res.role;
  }

  /** Deletes a role; throws the server's refusal. */
  async deleteRole(roleId: string): Promise<void> {
    await this.api.server.deleteRole({ roleId });
    this.dispatch({ case: "roleDeleted", value: roleId });
  }

  /**
   * Moves a role to index in the order: shown at once (the role_updated events confirm it); a
   * refusal puts the order back and rejects with what to tell.
   */
  async moveRole(roleId: string, index: number): Promise<void> {
    const before = this.state.roles;
    const role = before.find((r) => r.id === roleId);
    if (!role) return;
    const order = before.filter((r) => r.id !== roleId);
    order.splice(index, 0, role);
    this.dispatch({ case: "rolesOrdered", value: order.map((r, i) => ({ ...r, position: i })) });
    try {
      await this.api.server.updateRole({ roleId, position: index });
    } catch (e) {
      this.dispatch({ case: "rolesOrdered", value: [...before] });
      throw new Error(`Could not move ${role.name}: ${errorText(e)}`);
    }
  }

  // ---- notifications ----

  /**
   * Changes the person's notification preferences (their level, hidden content, email, or one
   * channel's level and mute): shown at once, then as the server stored them. Each change sends
   * the whole preferences, so changes go one after another, each made on what the one before
   * left; a refusal puts back what was shown and throws.
   */
  saveNotifyPrefs(change: PrefsChange): Promise<NotificationPrefs | undefined> {
    const done = this.prefsSaves.then(async () => {
      if (!this.state.prefs) {
        // Not loaded yet (or its load failed): what the server has, not the defaults, is changed.
        const res = await this.api.notify.getNotificationPrefs({});
        if (res.prefs) this.dispatch({ case: "notificationPrefs", value: res.prefs });
      }
      const before = this.state.prefs;
      const next = prefsWith(this.state, change, Date.now());
      this.dispatch({ case: "notificationPrefs", value: next });
      try {
        const res = await this.api.notify.setNotificationPrefs({ prefs: next });
        // The stream may have brought them already (or a newer change from another device).
        if (res.prefs && this.state.prefs === next) this.dispatch({ case: "notificationPrefs", value: res.prefs });
        return res.prefs;
      } catch (e) {
        if (before && this.state.prefs === next) this.dispatch({ case: "notificationPrefs", value: before });
        throw e;
      }
    });
    this.prefsSaves = done.catch(() => undefined);
    return done;
  }

  /** A channel's level or mute, from its menu (a notice says why not). */
  async setChannelNotify(channelId: string, change: { level?: NotifyLevel; mutedUntilMs?: number }): Promise<void> {
    await this.run("Could not change the channel's notifications", () => this.saveNotifyPrefs({ channel: { id: channelId, ...change } }));
  }

  /**
   * Turns notifications on for this device, asking for the browser's permission first if
   * needed (a notice says why not).
   */
  async enablePush(): Promise<void> {
    const push = this.host.push;
    await push.enable();
    if (push.state.error) this.tell(`Could not turn on notifications: ${push.state.error}`, "error");
    else if (push.state.status === "blocked") this.tell("Notifications are blocked for this site in the browser's settings.", "info");
  }

  /** Finds this device's notifications as the browser and the server have them now (another device may have removed it). */
  syncPush(): Promise<void> {
    return this.host.push.sync();
  }

  /** Turns notifications off for this device. */
  disablePush(): Promise<void> {
    return this.host.push.disable();
  }

  // ---- the community ----

  /** UpdateServerSettings; the answer is the new card. Throws the server's refusal. */
  async saveSettings(req: Init<typeof UpdateServerSettingsRequestSchema>): Promise<GetServerInfoResponse> {
    const info = (await this.api.server.updateServerSettings(req)) as GetServerInfoResponse;
    this.dispatch({ case: "info", value: info });
    return info;
  }

  // ---- reports ----

  /** Loads the open reports (the badge counts them); throws the server's refusal. */
  async loadReports(): Promise<void> {
    const before = new Map(this.state.reports);
    const res = await this.api.server.listReports({});
    // What the stream brought meanwhile (filed or filed again) may not be in the list.
    const since = [...this.state.reports.values()].filter((r) => before.get(r.id) !== r);
    this.dispatch({ case: "reportsListed", value: { list: res.reports, since } });
  }

  /** Resolves a report, and with it every report of its message; throws the server's refusal. */
  async resolveReport(r: Report): Promise<void> {
    await this.api.server.resolveReport({ reportId: r.id });
    if (r.message) this.dispatch({ case: "reportResolved", value: r.message.id });
  }

  /** Deletes a custom emoji; true when it is gone (a notice says why not). */
  async deleteEmoji(name: string): Promise<boolean> {
    const ok = await this.run(`Could not delete :${name}:`, () => this.api.server.deleteEmoji({ name }));
    // emoji_changed brings the new list to every member; the person's screens need not wait.
    if (ok) this.dispatch({ case: "emojiDeleted", value: name });
    return !!ok;
  }
}
