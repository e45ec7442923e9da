// The composer: a growing text box (Enter sends, Shift+Enter starts a new line, Up edits
// nothing but moves as usual), `@` mention autocomplete, an emoji button, and uploads with a
// progress bar each, from the attach button, a paste, or a drop on the channel. What is in the
// box, text and files, is its draft (state/drafts): kept per channel and thread for the tab's
// life. A file that failed to upload holds the message back until the person removes it or
// uploads it again: a message never goes without a file they saw in it.

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ChannelKind, type Member } from "../gen/svc/v1/types_pb";
import { LIMITS, limitError } from "../lib/chars";
import type { Api } from "../lib/api";
import { useTopics } from "../lib/emitter";
import { toWire } from "../lib/markdown";
import { formatSize } from "../lib/upload";
import * as drafts from "../state/drafts";
import type { Commands } from "../state/commands";
import { useStore, type Store } from "../state/store";
import { Avatar, useAutoGrow } from "./common";
import { useEmojiComplete } from "./EmojiComplete";
import { EmojiPicker } from "./EmojiPicker";
import { FileThumb } from "./FileThumb";
import { groupsToWire } from "../lib/groups";
import { groupOptions, GroupOptionItem, useGroupMentions } from "./mentions/groups";
import { PollButton } from "./polls/PollButton";
import { ReplyBar } from "./replies/Replies";
import { HoldNote } from "./moderation/SendHold";
import { idOfUsername, sendHold } from "../state/selectors";

export type ComposerHandle = { addFiles: (files: File[]) => void; focus: () => void };

export type ComposerCommands = Pick<Commands, "send" | "tell" | "typingNow" | "sendPoll">;

export function Composer(props: {
  /** The server's URL and custom emoji (the emoji picker); the members come from here too. */
  store: Store;
  act: ComposerCommands;
  /** For the uploads. */
  api: Api;
  channelId: string;
  threadRootId: string;
  placeholder: string;
  handle?: { current: ComposerHandle | null };
  /** Up in an empty composer: to the messages. */
  onUpFromEmpty?: () => void;
}) {
  const { store, act, api, channelId, threadRootId } = props;
  // The members to mention, as of the render: the channel around re-renders for theirs.
  const { members } = store.state;
  const draftKey = drafts.draftKey(store.base, channelId, threadRootId);
  useTopics(drafts.draftsEm, drafts.draftTopic(draftKey));
  const { text, files: slots, replyTo } = drafts.getDraft(draftKey);
  // @here and @everyone: offered, and sent as such, when they count (ui/mentions/groups.tsx).
  const groups = useGroupMentions(store, channelId);
  // Timed out (nothing can be done here) or waiting for slowmode (Send waits).
  const hold = sendHold(useStore(store, "me", "slowmode"), channelId);
  const out = hold?.kind === "timeout";
  const setText = (value: string) => drafts.setDraftText(draftKey, value);
  const [picking, setPicking] = useState(false);
  const [mention, setMention] = useState<{ start: number; query: string; index: number } | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  useAutoGrow(input, text);
  // Where the caret goes after a change made for the person (a mention, an emoji), set in the
  // same render as the text so that the next key lands after it.
  const caret = useRef<number | null>(null);
  useLayoutEffect(() => {
    const el = input.current;
    if (el && caret.current !== null) {
      el.focus();
      el.setSelectionRange(caret.current, caret.current);
      caret.current = null;
    }
  });

  useEffect(() => {
    setMention(null);
    emoji.close();
  }, [draftKey]);
  // A reply started from a message: the box takes the keys.
  useEffect(() => {
    if (replyTo) input.current?.focus();
  }, [replyTo?.id]);

  const addFiles = (files: File[]) => {
    // Info, not an error: what was added shows right here, in the list of files to send.
    if (drafts.addFiles(api, draftKey, files) > 0) act.tell(`A message takes at most ${drafts.ATTACHMENTS_MAX} files.`, "info");
  };

  const self = useRef<ComposerHandle | null>(null);
  self.current = { addFiles, focus: () => input.current?.focus() };
  if (props.handle) props.handle.current = self.current;
  // Gone from the page (a DM with a blocked member shows a notice in its place): nothing is
  // handed to it any more, such as files dropped on the channel, unless another took its place.
  const handle = props.handle;
  useEffect(
    () => () => {
      if (handle && handle.current === self.current) handle.current = null;
    },
    [handle],
  );

  const candidates: Member[] = mention
    ? [...members.values()]
        .filter((m) => {
          const q = mention.query.toLowerCase();
          return m.username.startsWith(q) || m.displayName.toLowerCase().split(/\s+/).some((w) => w.startsWith(q));
        })
        .sort((a, b) => a.username.localeCompare(b.username))
        .slice(0, 8)
    : [];
  const groupOpts = mention ? groupOptions(mention.query, groups, store.state.channels.get(channelId)?.kind === ChannelKind.DM) : [];
  const options = groupOpts.length + candidates.length;
  const listOpen = !!mention && options > 0;

  const findMention = (value: string, caret: number) => {
    const before = value.slice(0, caret);
    const m = /(^|[\s(])@([\p{L}\p{N}_.-]{0,32})$/u.exec(before);
    if (!m) return setMention(null);
    setMention({ start: caret - m[2].length - 1, query: m[2], index: 0 });
  };

  const insertMention = (username: string) => {
    if (!mention) return;
    const end = input.current?.selectionStart ?? text.length;
    const next = text.slice(0, mention.start) + "@" + username + " " + text.slice(end);
    setText(next);
    setMention(null);
    caret.current = mention.start + username.length + 2;
  };
  const pick = (i: number) => insertMention(i < groupOpts.length ? groupOpts[i].name : (candidates[i - groupOpts.length] ?? candidates[0]).username);

  const emoji = useEmojiComplete({
    id: `${channelId}-${threadRootId || "main"}`,
    custom: store.state.emoji,
    place: (start, s) => {
      const end = input.current?.selectionStart ?? text.length;
      setText(text.slice(0, start) + s + text.slice(end));
      caret.current = start + s.length;
    },
  });

  const insertText = (s: string) => {
    const el = input.current;
    const start = el?.selectionStart ?? text.length;
    const end = el?.selectionEnd ?? text.length;
    const next = text.slice(0, start) + s + text.slice(end);
    setText(next);
    caret.current = start + s.length;
  };

  const uploading = slots.some((s) => !s.attachment && !s.error);
  const failed = slots.filter((s) => s.error);
  const failedText =
    failed.length === 0
      ? ""
      : failed.length === 1
        ? `${failed[0].name} did not upload: remove it or try it again to send the message.`
        : `${failed.length} files did not upload: remove them or try them again to send the message.`;
  // Counted as the server counts it: the text as sent (trimmed, mentions as <@member_id>), in
  // characters (lib/chars).
  const typed = toWire(text.trim(), (u) => idOfUsername({ members }, u));
  const wire = groups ? groupsToWire(typed) : typed;
  const tooLongText = limitError(wire, LIMITS.messageText);
  const tooLong = tooLongText !== "";

  const send = () => {
    if (uploading || tooLong || hold) return;
    // Refused, and said why where the person looks: the notice stays until dismissed.
    if (failedText) return act.tell(failedText, "error");
    const ready: drafts.SentFile[] = slots.map((s) => {
      const a = s.attachment!;
      return { id: a.id, name: a.name, contentType: a.contentType, width: a.width, height: a.height, size: s.size, uploadedAt: s.uploadedAt };
    });
    if (!wire && ready.length === 0) return;
    act.send(channelId, threadRootId, wire, ready, replyTo);
    drafts.clearDraft(draftKey);
    setMention(null);
    emoji.close();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (emoji.onKeyDown(e)) return;
    if (mention && listOpen) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const d = e.key === "ArrowDown" ? 1 : -1;
        setMention({ ...mention, index: (mention.index + d + options) % options });
        return;
      }
      if ((e.key === "Enter" && !e.isComposing) || e.key === "Tab") {
        e.preventDefault();
        pick(mention.index);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setMention(null);
        return;
      }
    }
    if (e.key === "Escape" && replyTo) {
      e.preventDefault();
      drafts.setReplyTo(draftKey, undefined);
    } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === "ArrowUp" && !e.altKey && text === "" && props.onUpFromEmpty) {
      e.preventDefault();
      props.onUpFromEmpty();
    }
  };

  const listId = `mentions-${channelId}-${threadRootId || "main"}`;
  const noteId = `composer-note-${channelId}-${threadRootId || "main"}`;
  const holdId = `composer-hold-${channelId}-${threadRootId || "main"}`;
  return (
    <div class="composer">
      {mention && listOpen && (
        <ul class="mention-list" id={listId} role="listbox" aria-label="Members to mention">
          {groupOpts.map((g, i) => (
            <GroupOptionItem key={g.name} option={g} id={`${listId}-${i}`} selected={i === mention.index} onPick={() => pick(i)} />
          ))}
          {candidates.map((m, j) => {
            const i = j + groupOpts.length;
            return (
            <li
              key={m.id}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === mention.index}
              class={i === mention.index ? "mention-option selected" : "mention-option"}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(i);
              }}
            >
              <Avatar base={store.base} member={m} size={24} />
              <span class="mention-name">{m.displayName || m.username}</span>
              <span class="muted">@{m.username}</span>
            </li>
            );
          })}
        </ul>
      )}
      {emoji.list}
      {slots.length > 0 && (
        <ul class="upload-list" aria-label="Files to send">
          {slots.map((s) => (
            <li key={s.key} class={s.error ? "upload upload-error" : "upload"}>
              <FileThumb file={s.file} />
              <span class="upload-name">{s.name}</span>
              {s.error ? (
                <span class="upload-status" role="alert">
                  {s.error}
                </span>
              ) : s.attachment ? (
                <span class="upload-status">{s.size > 0 ? formatSize(s.size) : "uploaded"}</span>
              ) : (
                <progress class="upload-progress" max={1} value={s.progress} aria-label={`Uploading ${s.name}`} />
              )}
              {s.error && s.retry && (
                <button type="button" class="button upload-retry" aria-label={`Upload ${s.name} again`} onClick={() => drafts.retryFile(api, draftKey, s.key)}>
                  Try again
                </button>
              )}
              <button type="button" class="icon-button" aria-label={`Remove ${s.name}`} onClick={() => drafts.removeFile(draftKey, s.key)}>
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      {replyTo && <ReplyBar state={store.state} reply={replyTo} onCancel={() => drafts.setReplyTo(draftKey, undefined)} />}
      <div class="composer-row">
        <button type="button" class="icon-button" aria-label="Attach files" title="Attach files" disabled={out} onClick={() => fileInput.current?.click()}>
          +
        </button>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          aria-hidden="true"
          tabIndex={-1}
          onChange={(e) => {
            const el = e.target as HTMLInputElement;
            addFiles([...(el.files ?? [])]);
            el.value = "";
          }}
        />
        <textarea
          ref={input}
          class="input composer-input"
          rows={1}
          placeholder={props.placeholder}
          aria-label={props.placeholder}
          aria-autocomplete="list"
          aria-controls={emoji.listId ?? (listOpen ? listId : undefined)}
          aria-activedescendant={emoji.activeId ?? (listOpen ? `${listId}-${mention!.index}` : undefined)}
          aria-invalid={tooLong}
          aria-describedby={out ? holdId : undefined}
          disabled={out}
          value={text}
          onInput={(e) => {
            const el = e.target as HTMLTextAreaElement;
            setText(el.value);
            findMention(el.value, el.selectionStart ?? el.value.length);
            emoji.find(el.value, el.selectionStart ?? el.value.length);
            if (el.value.trim()) act.typingNow(channelId, threadRootId);
          }}
          onKeyDown={onKeyDown}
          onClick={(e) => {
            const el = e.target as HTMLTextAreaElement;
            findMention(el.value, el.selectionStart ?? el.value.length);
            emoji.find(el.value, el.selectionStart ?? el.value.length);
          }}
          onBlur={() => {
            setMention(null);
            emoji.close();
          }}
          onPaste={(e) => {
            const files = [...(e.clipboardData?.files ?? [])];
            if (files.length > 0) {
              e.preventDefault();
              addFiles(files);
            }
          }}
        />
        {!threadRootId && !out && <PollButton act={act} channelId={channelId} />}
        <button type="button" class="icon-button" aria-label="Insert emoji" title="Insert emoji" disabled={out} onClick={() => setPicking(true)}>
          ☺
        </button>
        <button
          type="button"
          class="button button-primary send-button"
          aria-label="Send"
          aria-describedby={hold ? holdId : failedText ? noteId : undefined}
          disabled={uploading || tooLong || !!hold}
          onClick={send}
        >
          Send
        </button>
      </div>
      {tooLong && (
        <p class="composer-note" role="alert">
          {tooLongText}
        </p>
      )}
      {failedText && (
        <p class="composer-note" id={noteId}>
          {failedText}
        </p>
      )}
      {hold && <HoldNote hold={hold} id={holdId} />}
      {picking && <EmojiPicker store={store} title="Insert an emoji" onPick={insertText} onClose={() => setPicking(false)} />}
    </div>
  );
}
