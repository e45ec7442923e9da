// The messages on their way: a queue kept in the browser's storage, sent in order, each with
// the client_id it was given when it was written, across retries and reloads, so that a retry
// never makes a second message.

import { Code } from "@connectrpc/connect";
import type { Message } from "../gen/svc/v1/types_pb";
import { codeOf, errorText, retryAfterMs, retryable, type Api } from "../lib/api";
import type { Emitter } from "../lib/emitter";
import { loadPending, savePending } from "../lib/storage";
import type { Topic } from "./topics";
import type { ReplyRef, SentFile } from "./drafts";

/** A message on its way: shown at the end of its channel until the server has it. */
export type Pending = {
  clientId: string;
  channelId: string;
  threadRootId: string;
  text: string;
  attachments: SentFile[];
  /** The message it answers, if any. */
  replyTo?: ReplyRef;
  /** Who wrote it: a tab's queue outlives a sign-out, and goes only as its author. */
  memberId?: string;
  state: "sending" | "failed";
  error: string;
};

/** Whether a queued message is the signed-in member's (one kept from before the memberId was). */
export function ownPending(p: Pending, meId: string | undefined): boolean {
  return !p.memberId || p.memberId === meId;
}

/** A random id (crypto.randomUUID needs a secure context; this does not). */
export function newId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** What the queue needs of the session that sends it. */
export type OutboxHost = {
  base: string;
  api: Api;
  em: Emitter<Topic>;
  /** The signed-in member's id. */
  me(): string | undefined;
  /** The session can send (its state is loaded), and is not closed. */
  ready(): boolean;
  closed(): boolean;
  /** Shows a message the server took in the views that hold its channel or thread. */
  shown(m: Message): void;
  /** After an unauthenticated answer: true when a new access token came (Session.reauthorized). */
  reauthorized(e: unknown): Promise<boolean>;
  /** Moves to the screen a call's failure calls for (Session.failed). */
  failed(e: unknown): void;
  /** The server asked to wait ms before sending in a channel again (slowmode's Retry-After). */
  waited(channelId: string, ms: number): void;
  /**
   * The server refused the message for what it says (a filter): true when it was put back in
   * its message box to be changed, and the person told why, so that it leaves the queue.
   */
  refused(p: Pending, why: string): boolean;
};

export class Outbox {
  pending: Pending[];
  private sending = false;
  private retryTimer = 0;
  private retryDelay = 1000;

  constructor(private readonly host: OutboxHost) {
    this.pending = loadPending<Pending>(host.base);
  }

  /** Queues a message; it shows at once and goes when the server can take it. */
  send(channelId: string, threadRootId: string, text: string, attachments: SentFile[], replyTo?: ReplyRef): void {
    this.pending.push({
      clientId: newId(),
      channelId,
      threadRootId,
      text,
      attachments,
      replyTo,
      memberId: this.host.me(),
      state: "sending",
      error: "",
    });
    this.save();
    void this.flush();
  }


  retry(p: Pending): void {
    p.state = "sending";
    p.error = "";
    this.save();
    void this.flush();
  }

  drop(p: Pending): void {
    this.pending = this.pending.filter((x) => x !== p);
    this.save();
  }

  /** The queued message with this client_id has reached the server (its event came). */
  arrived(clientId: string): void {
    const p = this.pending.find((x) => x.clientId && x.clientId === clientId);
    if (p) this.drop(p);
  }

  /**
   * At a sign-out (the session closed first): the queue goes, and a send still on its way does
   * not write it back.
   */
  forget(): void {
    this.pending = [];
    savePending(this.host.base, []);
  }

  /** The session closed: no retry is left waiting. */
  stop(): void {
    clearTimeout(this.retryTimer);
  }

  private save(): void {
    if (this.host.closed()) return;
    savePending(this.host.base, this.pending);
    this.host.em.emit("pending");
  }

  /** Sends the queue in order; stops at a failure the network caused and tries again later. */
  async flush(): Promise<void> {
    if (this.sending || !this.host.ready()) return;
    this.sending = true;
    clearTimeout(this.retryTimer);
    try {
      for (;;) {
        const p = this.pending.find((x) => x.state === "sending" && ownPending(x, this.host.me()));
        if (!p) break;
        try {
          const res = await this.host.api.chat.sendMessage({
            channelId: p.channelId,
            threadRootId: p.threadRootId,
            text: p.text,
            clientId: p.clientId,
            attachmentIds: p.attachments.map((a) => a.id),
            replyToId: p.replyTo?.id ?? "",
          });
          this.retryDelay = 1000;
          this.drop(p);
          if (res.message) this.host.shown(res.message);
        } catch (e) {
          if (codeOf(e) === Code.Unauthenticated) {
            if (await this.host.reauthorized(e)) continue;
            this.host.failed(e);
            return;
          }
          if (retryable(e)) {
            p.error = errorText(e);
            this.host.em.emit("pending");
            // Slowmode says how long: the message goes then, not before.
            const wait = retryAfterMs(e);
            if (wait) this.host.waited(p.channelId, wait);
            this.retryTimer = window.setTimeout(() => void this.flush(), wait || this.retryDelay);
            if (!wait) this.retryDelay = Math.min(this.retryDelay * 2, 15_000);
            return;
          }
          if (codeOf(e) === Code.InvalidArgument && this.host.refused(p, errorText(e))) {
            this.drop(p);
            continue;
          }
          p.state = "failed";
          p.error = errorText(e);
          this.save();
        }
      }
    } finally {
      this.sending = false;
    }
  }
}
