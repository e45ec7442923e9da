// One message: author, time, text (the markdown subset, as text nodes), attachments with their
// size reserved, reactions, the thread link, and the actions (react, reply in a thread, edit,
// delete) as a toolbar that shows on hover and on keyboard focus.

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../gen/svc/v1/types_pb";
import { absUrl, isWebUrl, type Api } from "../lib/api";
import { LIMITS, limitError } from "../lib/chars";
import { emojiName } from "../lib/emoji";
import { fromWire, plainText, renderMarkdown, toWire } from "../lib/markdown";
import { StandardEmoji } from "../lib/markdownParts";
import { canDeleteMessageOf } from "../lib/ranks";
import { formatSize } from "../lib/upload";
import type { Commands } from "../state/commands";
import { draftKey, restoreDraft, setReplyTo } from "../state/drafts";
import type { Pending } from "../state/outbox";
import { idOfUsername, markdownContext, mayMentionGroups, memberName, mentionsMe, nameOf, previewKey, timedOutUntil } from "../state/selectors";
import type { State, Store } from "../state/store";
import { Avatar, formatFull, formatTime, useAutoGrow } from "./common";
import { EmojiPicker } from "./EmojiPicker";
import { lazyView } from "./lazy";
import { groupsFromWire, groupsToWire } from "../lib/groups";
import { withGroups } from "./mentions/groups";
import { PinAction, PinnedMark } from "./pins/Pins";
import { PollView } from "./polls/PollView";
import { ReplyAction, replyKey, ReplyQuote } from "./replies/Replies";

// Pictures shown large and the report form: chunks loaded when first opened.
const Lightbox = lazyView("the picture viewer", () => import("./Lightbox"), (m) => m.Lightbox, "dialog");
const ReportDialog = lazyView("the report form", () => import("./moderation/ReportDialog"), (m) => m.ReportDialog, "dialog");

export type MessageActions = {
  onThread?: (rootId: string) => void;
  onMember: (id: string, target: HTMLElement) => void;
  /** Copies a link that opens the message (Copy link to message). */
  onCopyLink?: (m: Message) => void;
};

/**
 * Asks a message of the person's own to open its edit box (Up in an empty message box): the
 * event the message's element takes; back is where the focus goes when the edit ends.
 */
export const EDIT_EVENT = "hearth-edit";
export type EditRequest = CustomEvent<{ back: HTMLElement | null }>;

/** What a message shows of the State: its author, the names it mentions, emoji, previews (and its channel's, for pins). */
export type MessageState = Pick<State, "me" | "members" | "emoji" | "previews" | "channels" | "info">;

/** The commands a message's actions call (and a message not sent yet's). */
export type MessageCommands = Pick<Commands, "react" | "remove" | "edit" | "loadPreviews" | "retryPending" | "dropPending" | "tell" | "togglePin" | "vote" | "closePoll">;

/**
 * What every message of a list shares: the State it shows, the commands of its actions, the
 * server (base, for files and pictures; api, to report it) and the store (for the emoji picker).
 */
export type MessageShared = { state: MessageState; act: MessageCommands; base: string; api: Api; store: Store };

export function MessageItem(props: {
  shared: MessageShared;
  message: Message;
  grouped: boolean;
  target: boolean;
  inThread: boolean;
  actions: MessageActions;
}) {
  const { shared, message: m, actions } = props;
  const { state, act } = shared;
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [picking, setPicking] = useState(false);
  const [reporting, setReporting] = useState(false);
  // The picture shown large (its index among the message's pictures), or -1.
  const [viewing, setViewing] = useState(-1);
  const article = useRef<HTMLElement>(null);
  useKeptFocus(article, editing, confirming);
  // Editing asked for from the message box: the focus goes back there when the edit ends. The
  // listener is there as soon as the message is on the page (a layout effect runs before the
  // browser does anything else), so an Up pressed right after a message shows edits it.
  const back = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    const el = article.current;
    const on = (e: Event) => {
      back.current = (e as EditRequest).detail?.back ?? null;
      setEditing(true);
    };
    el?.addEventListener(EDIT_EVENT, on);
    return () => el?.removeEventListener(EDIT_EVENT, on);
  }, []);
  const endEdit = () => {
    setEditing(false);
    const to = back.current;
    back.current = null;
    if (to) requestAnimationFrame(() => to.focus());
  };
  const mine = m.authorId === state.me?.id;
  // Timed out: the person may read, and take back a reaction, but not react, edit or report.
  const out = timedOutUntil(state.me) > 0;
  const name = nameOf(state, m.authorId);
  const ctx = withGroups(markdownContext(state, actions.onMember), m);
  const cls = ["msg"];
  if (props.grouped) cls.push("msg-grouped");
  if (props.target) cls.push("msg-target");
  if (mentionsMe(m, state.me?.id)) cls.push("msg-mentions-me");
  const canThread = !props.inThread && !m.threadRootId && !m.deleted && actions.onThread;
  const linked = !m.deleted && /https?:\/\//i.test(m.text);
  useEffect(() => {
    if (linked) act.loadPreviews(m);
  }, [linked, previewKey(m)]);
  // Undefined while the previews are asked for: their place is kept meanwhile.
  const asked = linked ? state.previews.get(previewKey(m)) : [];
  const previews = asked?.filter((p) => isWebUrl(p.url));
  const images = m.attachments.filter(inlineImage).map((a) => ({ url: absUrl(shared.base, a.url), name: a.name, width: a.width, height: a.height }));
  return (
    <article
      ref={article}
      class={cls.join(" ")}
      id={"msg-" + m.id}
      data-id={m.id}
      data-mine={mine && !m.deleted ? "" : undefined}
      tabindex={-1}
      aria-label={`${name}, ${formatFull(m.createdAtMs)}`}
      onKeyDown={(e) => replyKey(e, shared.base, m, props.inThread)}
    >
      <div class="msg-gutter">
        {props.grouped ? (
          <time class="msg-time-hover" dateTime={new Date(Number(m.createdAtMs)).toISOString()}>
            {formatTime(m.createdAtMs)}
          </time>
        ) : (
          <button type="button" class="avatar-button" aria-label={`Profile of ${name}`} onClick={(e) => actions.onMember(m.authorId, e.currentTarget)}>
            <Avatar base={shared.base} member={state.members.get(m.authorId)} />
          </button>
        )}
      </div>
      <div class="msg-body">
        {!m.deleted && <ReplyQuote host={shared} message={m} />}
        {!props.grouped && (
          <header class="msg-head">
            <button type="button" class="author" title={name} onClick={(e) => actions.onMember(m.authorId, e.currentTarget)}>
              {name}
            </button>
            <time class="msg-time" dateTime={new Date(Number(m.createdAtMs)).toISOString()} title={formatFull(m.createdAtMs)}>
              {formatTime(m.createdAtMs)}
            </time>
          </header>
        )}
        <PinnedMark state={state} message={m} />
        {m.deleted ? (
          <p class="msg-deleted">This message was deleted.</p>
        ) : editing ? (
          <EditBox state={state} act={act} message={m} onDone={endEdit} />
        ) : (
          m.text && (
            <div class="msg-text">
              {renderMarkdown(m.text, ctx)}
              {m.editedAtMs > 0n && (
                <span class="edited" title={formatFull(m.editedAtMs)}>
                  {" "}
                  (edited)
                </span>
              )}
            </div>
          )
        )}
        {!m.deleted && m.poll && <PollView state={state} act={act} message={m} />}
        {!m.deleted && m.attachments.length > 0 && (
          <div class="attachments">
            {m.attachments.map((a) => (
              <AttachmentView
                key={a.id}
                base={shared.base}
                name={a.name}
                url={a.url}
                contentType={a.contentType}
                width={a.width}
                height={a.height}
                size={Number(a.size)}
                onOpen={() => setViewing(m.attachments.filter(inlineImage).indexOf(a))}
              />
            ))}
          </div>
        )}
        {!previews && (
          <div class="previews" aria-hidden="true">
            <div class="preview preview-loading">
              <span class="preview-loading-image" />
              <span class="preview-text">
                <span class="preview-loading-line" />
                <span class="preview-loading-line preview-loading-short" />
              </span>
            </div>
          </div>
        )}
        {previews && previews.length > 0 && (
          <div class="previews">
            {previews.map((p) => (
              <a class="preview" key={p.url} href={p.url} target="_blank" rel="noopener noreferrer nofollow ugc">
                {p.imageUrl && <img src={absUrl(shared.base, p.imageUrl)} alt="" width={72} height={72} loading="lazy" decoding="async" />}
                <span class="preview-text">
                  {p.siteName && <span class="preview-site">{p.siteName}</span>}
                  <span class="preview-title">{p.title || p.url}</span>
                  {p.description && <span class="preview-description">{p.description}</span>}
                </span>
              </a>
            ))}
          </div>
        )}
        {m.reactions.length > 0 && (
          <div class="reactions" role="group" aria-label="Reactions">
            {m.reactions.map((r) => {
              const me = r.memberIds.includes(state.me?.id ?? "");
              const custom = r.emoji.startsWith(":") ? state.emoji.get(r.emoji.slice(1, -1)) : undefined;
              const who = r.memberIds.map((id) => nameOf(state, id)).join(", ");
              return (
                <button
                  type="button"
                  class={me ? "reaction reaction-mine" : "reaction"}
                  aria-pressed={me}
                  aria-label={`${emojiName(r.emoji)}: ${r.memberIds.length}`}
                  title={`${who} reacted with ${r.emoji}`}
                  disabled={out && !me}
                  onClick={() => act.react(m, r.emoji)}
                >
                  {custom ? (
                    <img src={custom} alt={r.emoji} width={18} height={18} />
                  ) : (
                    <span class="reaction-emoji">{/^:[a-z0-9_+-]{1,62}:$/.test(r.emoji) ? <StandardEmoji name={r.emoji.slice(1, -1)} raw={r.emoji} /> : r.emoji}</span>
                  )}
                  <span class="reaction-count">{r.memberIds.length}</span>
                </button>
              );
            })}
          </div>
        )}
        {!props.inThread && m.replyCount > 0 && actions.onThread && (
          <button type="button" class="thread-link" onClick={() => actions.onThread!(m.id)}>
            {m.replyCount} {m.replyCount === 1 ? "reply" : "replies"}
          </button>
        )}
      </div>
      {!m.deleted && !editing && (
        <div class="msg-actions" role="toolbar" aria-label="Message actions">
          {confirming ? (
            <>
              <span class="confirm-text">Delete this message?</span>
              <button type="button" class="button button-danger" onClick={() => act.remove(m).then(() => setConfirming(false))}>
                Delete
              </button>
              <button type="button" class="button confirm-cancel" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          ) : (
            <>
              {!out && (
                <button type="button" class="icon-button" aria-label="Add reaction" title="Add reaction" onClick={() => setPicking(true)}>
                  ☺
                </button>
              )}
              {!out && <ReplyAction base={shared.base} message={m} inThread={props.inThread} />}
              {canThread && (
                <button type="button" class="icon-button" aria-label="Reply in thread" title="Reply in thread" onClick={() => actions.onThread!(m.id)}>
                  ↩
                </button>
              )}
              {!out && <PinAction state={state} act={act} message={m} />}
              {actions.onCopyLink && (
                <button type="button" class="icon-button" aria-label="Copy link to message" title="Copy link" onClick={() => actions.onCopyLink!(m)}>
                  🔗
                </button>
              )}
              {mine && !out && (
                <button type="button" class="icon-button" aria-label="Edit message" title="Edit" onClick={() => setEditing(true)}>
                  ✎
                </button>
              )}
              {canDeleteMessageOf(state, m.authorId) && (
                <button type="button" class="icon-button" aria-label="Delete message" title="Delete" onClick={() => setConfirming(true)}>
                  🗑
                </button>
              )}
              {!mine && !out && (
                <button type="button" class="icon-button" aria-label="Report message" title="Report to the moderators" onClick={() => setReporting(true)}>
                  ⚑
                </button>
              )}
            </>
          )}
        </div>
      )}
      {picking && <EmojiPicker store={shared.store} title="Add a reaction" onPick={(e) => act.react(m, e)} onClose={() => setPicking(false)} />}
      {viewing >= 0 && <Lightbox images={images} start={viewing} onClose={() => setViewing(-1)} />}
      {reporting && <ReportDialog api={shared.api} members={state.members} message={m} onClose={() => setReporting(false)} />}
    </article>
  );
}

/**
 * Keeps the keyboard's place in a message whose controls change under it. The toolbar's
 * buttons are replaced when a delete is asked to be confirmed, and the edit box goes when an
 * edit is saved or cancelled: the focused control leaves the page and the browser would put
 * the focus back at the top of the document. Asking to delete focuses Cancel (the safe
 * choice); the confirmation's end, and an edit's, focus what opened them (Delete, Edit), or
 * the message itself when that is gone (a message deleted). Only a focus that was lost (on
 * the body) or is still in this message is moved: one the person put elsewhere stays.
 *
 * A layout effect, run as the new controls go in: an effect runs after the browser has
 * painted, and a key pressed in between (Shift+Tab from Cancel to Delete) would have its
 * focus taken back by a move meant for the moment before it.
 */
function useKeptFocus(article: { current: HTMLElement | null }, editing: boolean, confirming: boolean) {
  const before = useRef({ editing, confirming });
  useLayoutEffect(() => {
    const was = before.current;
    before.current = { editing, confirming };
    const el = article.current;
    // An edit starting: the edit box takes the focus itself.
    if (!el || editing || (was.editing === editing && was.confirming === confirming)) return;
    const active = document.activeElement;
    if (active && active !== document.body && !el.contains(active)) return;
    const control = (label: string) => el.querySelector<HTMLElement>(`.msg-actions [aria-label="${label}"]`);
    let next: HTMLElement | null = null;
    if (confirming) next = el.querySelector<HTMLElement>(".msg-actions .confirm-cancel");
    else if (was.confirming) next = control("Delete message");
    else if (was.editing) next = control("Edit message");
    // The toolbar shows only while the message has the focus (or the pointer): the message
    // first, so that its buttons can take the focus.
    el.focus({ preventScroll: true });
    next?.focus({ preventScroll: true });
  }, [editing, confirming]);
}

function EditBox(props: { state: Pick<State, "members" | "me" | "channels" | "info">; act: Pick<Commands, "edit">; message: Message; onDone: () => void }) {
  const { state, message } = props;
  const usernameOf = (id: string) => state.members.get(id)?.username;
  const [text, setText] = useState(() => groupsFromWire(fromWire(message.text, usernameOf)));
  const input = useRef<HTMLTextAreaElement>(null);
  useAutoGrow(input, text);
  // As the box goes in (useKeptFocus says why): what is typed at once goes into it.
  useLayoutEffect(() => {
    const el = input.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  // Counted as the server counts it: the text as sent, in characters (lib/chars).
  // Group mentions as the composer sends them: for those whose group mentions count, and
  // those the message had (the server counts them by the editor's rank).
  const typed = toWire(text.trim(), (u) => idOfUsername(state, u));
  const wire = mayMentionGroups(state, message.channelId) || /<!(here|everyone)>/.test(message.text) ? groupsToWire(typed) : typed;
  const tooLong = limitError(wire, LIMITS.messageText);
  const save = async () => {
    if (tooLong) return;
    if (wire === message.text || (await props.act.edit(message, wire))) props.onDone();
  };
  return (
    <div class="edit-box">
      <textarea
        class="input composer-input"
        aria-label="Edit message"
        aria-invalid={tooLong ? true : undefined}
        value={text}
        rows={1}
        ref={input}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            props.onDone();
          } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            // (Enter that ends an input method's composition picks the characters: no save.)
            e.preventDefault();
            void save();
          }
        }}
      />
      <div class="edit-actions">
        <span class="muted">Escape to cancel, Enter to save</span>
        <button type="button" class="button" onClick={props.onDone}>
          Cancel
        </button>
        <button type="button" class="button button-primary" disabled={tooLong !== ""} onClick={() => void save()}>
          Save
        </button>
      </div>
      {tooLong && (
        <p class="composer-note" role="alert">
          {tooLong}
        </p>
      )}
    </div>
  );
}

/** Fits an image of w×h into the box, keeping its shape; the size is reserved before it loads. */
export function fitImage(w: number, h: number, maxW = 400, maxH = 300): [number, number] {
  const scale = Math.min(1, maxW / w, maxH / h);
  return [Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale))];
}

/**
 * The largest image drawn inline, as its header claims it: a few bytes can claim a picture
 * that takes gigabytes to decode, and every viewer would decode it unasked. 16,384 pixels a
 * side and 144 million in all keep a 108-megapixel phone photo (12,000 x 9,000) inline; a
 * larger one is a file to open.
 */
const inlineSideMax = 16_384;
const inlinePixelsMax = 144_000_000;

/** Whether an attachment is a picture drawn in the message (and shown large when clicked). */
function inlineImage(a: { contentType: string; width: number; height: number; url: string }): boolean {
  const drawable = a.width > 0 && a.height > 0 && a.width <= inlineSideMax && a.height <= inlineSideMax && a.width * a.height <= inlinePixelsMax;
  return a.contentType.startsWith("image/") && drawable && a.url !== "";
}

export function AttachmentView(props: {
  base: string;
  name: string;
  url: string;
  contentType: string;
  width: number;
  height: number;
  size: number;
  local?: string;
  /** Shows the picture large (a plain click; with a modifier key it opens as a link does). */
  onOpen?: () => void;
}) {
  const url = props.local ?? absUrl(props.base, props.url);
  if (inlineImage({ ...props, url })) {
    const [w, h] = fitImage(props.width, props.height);
    return (
      <a
        class="att-image"
        href={url}
        target="_blank"
        rel="noopener noreferrer"
        onClick={(e) => {
          if (!props.onOpen || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
          e.preventDefault();
          props.onOpen();
        }}
      >
        <img src={url} alt={props.name} width={w} height={h} loading="lazy" decoding="async" />
      </a>
    );
  }
  return (
    <a class="att-file" href={url || undefined} target="_blank" rel="noopener noreferrer" download={props.name}>
      <span aria-hidden="true">📄</span>{" "}
      <span class="att-name" title={props.name}>
        {props.name}
      </span>
      {props.size > 0 && <span class="muted att-size"> · {formatSize(props.size)}</span>}
    </a>
  );
}

export function PendingItem(props: { shared: MessageShared; pending: Pending }) {
  const { shared, pending: p } = props;
  const { state, act } = shared;
  const ctx = markdownContext(state);
  const me = state.me;
  return (
    <article class={p.state === "failed" ? "msg msg-pending msg-failed" : "msg msg-pending"} data-client-id={p.clientId} aria-label="Your message, not sent yet">
      <div class="msg-gutter">
        <Avatar base={shared.base} member={me} />
      </div>
      <div class="msg-body">
        <header class="msg-head">
          <span class="author" title={me ? me.displayName || me.username : ""}>
            {me ? me.displayName || me.username : ""}
          </span>
          <span class="msg-time">{p.state === "failed" ? "Not sent" : "Sending…"}</span>
        </header>
        {p.replyTo && (
          <p class="reply-quote">
            <span aria-hidden="true" class="reply-quote-mark">
              ↱
            </span>
            <span class="reply-quote-author">{nameOf(state, p.replyTo.authorId)}</span>
            <span class="reply-quote-text">{plainText(p.replyTo.text, (id) => memberName(state, id))}</span>
          </p>
        )}
        {p.text && <div class="msg-text">{renderMarkdown(p.text, ctx)}</div>}
        {p.attachments.length > 0 && (
          <div class="attachments">
            {p.attachments.map((a) => (
              <span class="att-file" key={a.id}>
                📄 {a.name}
              </span>
            ))}
          </div>
        )}
        {(p.error || p.state === "failed") && (
          <div class="pending-error" role="alert">
            <span>{p.state === "failed" ? p.error.replace(/^./, (c) => c.toUpperCase()).replace(/([^.!?])$/, "$1.") : `Will retry: ${p.error}`}</span>
            {p.state === "failed" && (
              <>
                <button type="button" class="button" onClick={() => act.retryPending(p)}>
                  Retry
                </button>
                <button type="button" class="button" onClick={(e) => editPending(shared.base, act, p, e.currentTarget as HTMLElement)}>
                  Edit
                </button>
                <button type="button" class="button" onClick={() => act.dropPending(p)}>
                  Discard
                </button>
              </>
            )}
          </div>
        )}
      </div>
    </article>
  );
}

/**
 * Puts a message the server refused back in its message box (text and files still on the
 * server) and takes the failed copy away, so that the person can change it and send it again.
 * Refused while the box holds a draft of its own, which it would replace.
 */
function editPending(base: string, act: Pick<Commands, "tell" | "dropPending">, p: Pending, from: HTMLElement): void {
  const key = draftKey(base, p.channelId, p.threadRootId);
  const { ok, gone } = restoreDraft(key, p.text, p.attachments, Date.now());
  if (!ok) {
    act.tell("The message box holds a draft: send it or empty it, then edit the message that was not sent.", "info");
    return;
  }
  if (p.replyTo) setReplyTo(key, p.replyTo);
  act.dropPending(p);
  if (gone.length > 0) act.tell(`No longer on the server (uploaded more than a day ago), attach again: ${gone.join(", ")}`, "error");
  const box = from.closest(".channel-view, .thread-panel")?.querySelector<HTMLTextAreaElement>(".composer-input");
  if (box) {
    // After the box shows the text: the caret at its end, ready to change it.
    requestAnimationFrame(() => {
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length);
    });
  }
}
