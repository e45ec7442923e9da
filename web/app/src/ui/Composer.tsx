// The composer: a growing text box (Enter sends, Shift+Enter starts a new line, Up edits
// nothing but moves as usual), `@` mention autocomplete, an emoji button, and uploads with a
// progress bar each, from the attach button, a paste, or a drop on the channel.

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Attachment, Member } from "../gen/svc/v1/types_pb";
import { errorText } from "../lib/api";
import { LIMITS, limitError } from "../lib/chars";
import { toWire } from "../lib/markdown";
import { formatSize, upload } from "../lib/upload";
import type { Session } from "../state/session";
import { Avatar, useAutoGrow } from "./common";
import { EmojiPicker } from "./EmojiPicker";

const ATTACHMENTS_MAX = 10;
const UPLOAD_MAX = 25_000_000;

type Slot = {
  key: number;
  file: File;
  progress: number;
  attachment?: Attachment;
  error?: string;
  abort?: () => void;
};

// Drafts survive switching channels (not a reload).
const drafts = new Map<string, string>();
let slotKeys = 0;

export type ComposerHandle = { addFiles: (files: File[]) => void; focus: () => void };

export function Composer(props: {
  session: Session;
  channelId: string;
  threadRootId: string;
  placeholder: string;
  handle?: { current: ComposerHandle | null };
  /** Up in an empty composer: to the messages. */
  onUpFromEmpty?: () => void;
}) {
  const { session, channelId, threadRootId } = props;
  const draftKey = channelId + "/" + threadRootId;
  const [text, setText] = useState(() => drafts.get(draftKey) ?? "");
  const [slots, setSlots] = useState<Slot[]>([]);
  const [picking, setPicking] = useState(false);
  const [mention, setMention] = useState<{ start: number; query: string; index: number } | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const slotsRef = useRef(slots);
  slotsRef.current = slots;
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
    setText(drafts.get(draftKey) ?? "");
    setSlots([]);
    setMention(null);
  }, [draftKey]);

  const update = (key: number, change: Partial<Slot>) =>
    setSlots((list) => list.map((s) => (s.key === key ? { ...s, ...change } : s)));

  const addFiles = (files: File[]) => {
    const room = ATTACHMENTS_MAX - slotsRef.current.length;
    // Info, not an error: what was added shows right here, in the list of files to send.
    if (files.length > room) session.tell(`A message takes at most ${ATTACHMENTS_MAX} files.`, "info");
    for (const file of files.slice(0, Math.max(0, room))) {
      const key = ++slotKeys;
      if (file.size > UPLOAD_MAX) {
        setSlots((l) => [...l, { key, file, progress: 0, error: `${formatSize(file.size)}: the limit is 25 MB` }]);
        continue;
      }
      const u = upload(session.api, file, (f) => update(key, { progress: f }));
      setSlots((l) => [...l, { key, file, progress: 0, abort: u.abort }]);
      u.promise.then(
        (a) => update(key, { attachment: a, progress: 1, abort: undefined }),
        (e) => update(key, { error: errorText(e), abort: undefined }),
      );
    }
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
    ? [...session.members.values()]
        .filter((m) => {
          const q = mention.query.toLowerCase();
          return m.username.startsWith(q) || m.displayName.toLowerCase().split(/\s+/).some((w) => w.startsWith(q));
        })
        .sort((a, b) => a.username.localeCompare(b.username))
        .slice(0, 8)
    : [];

  const findMention = (value: string, caret: number) => {
    const before = value.slice(0, caret);
    const m = /(^|[\s(])@([\p{L}\p{N}_.-]{0,32})$/u.exec(before);
    if (!m) return setMention(null);
    setMention({ start: caret - m[2].length - 1, query: m[2], index: 0 });
  };

  const insertMention = (member: Member) => {
    if (!mention) return;
    const end = input.current?.selectionStart ?? text.length;
    const next = text.slice(0, mention.start) + "@" + member.username + " " + text.slice(end);
    setText(next);
    drafts.set(draftKey, next);
    setMention(null);
    caret.current = mention.start + member.username.length + 2;
  };

  const insertText = (s: string) => {
    const el = input.current;
    const start = el?.selectionStart ?? text.length;
    const end = el?.selectionEnd ?? text.length;
    const next = text.slice(0, start) + s + text.slice(end);
    setText(next);
    drafts.set(draftKey, next);
    caret.current = start + s.length;
  };

  const uploading = slots.some((s) => !s.attachment && !s.error);
  // Counted as the server counts it: the text as sent (trimmed, mentions as <@member_id>), in
  // characters (lib/chars).
  const wire = toWire(text.trim(), (u) => session.idOfUsername(u));
  const tooLongText = limitError(wire, LIMITS.messageText);
  const tooLong = tooLongText !== "";

  const send = () => {
    if (uploading || tooLong) return;
    const ready = slots.filter((s) => s.attachment).map((s) => s.attachment!);
    if (!wire && ready.length === 0) return;
    session.send(channelId, threadRootId, wire, ready);
    setText("");
    drafts.delete(draftKey);
    setSlots([]);
    setMention(null);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (mention && candidates.length > 0) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const d = e.key === "ArrowDown" ? 1 : -1;
        setMention({ ...mention, index: (mention.index + d + candidates.length) % candidates.length });
        return;
      }
      if ((e.key === "Enter" && !e.isComposing) || e.key === "Tab") {
        e.preventDefault();
        insertMention(candidates[mention.index] ?? candidates[0]);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setMention(null);
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === "ArrowUp" && !e.altKey && text === "" && props.onUpFromEmpty) {
      e.preventDefault();
      props.onUpFromEmpty();
    }
  };

  const listId = `mentions-${channelId}-${threadRootId || "main"}`;
  return (
    <div class="composer">
      {mention && candidates.length > 0 && (
        <ul class="mention-list" id={listId} role="listbox" aria-label="Members to mention">
          {candidates.map((m, i) => (
            <li
              key={m.id}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === mention.index}
              class={i === mention.index ? "mention-option selected" : "mention-option"}
              onMouseDown={(e) => {
                e.preventDefault();
                insertMention(m);
              }}
            >
              <Avatar session={session} member={m} size={24} />
              <span class="mention-name">{m.displayName || m.username}</span>
              <span class="muted">@{m.username}</span>
            </li>
          ))}
        </ul>
      )}
      {slots.length > 0 && (
        <ul class="upload-list" aria-label="Files to send">
          {slots.map((s) => (
            <li key={s.key} class={s.error ? "upload upload-error" : "upload"}>
              <span class="upload-name">{s.file.name || "pasted image"}</span>
              {s.error ? (
                <span class="upload-status" role="alert">
                  {s.error}
                </span>
              ) : s.attachment ? (
                <span class="upload-status">{formatSize(s.file.size)}</span>
              ) : (
                <progress class="upload-progress" max={1} value={s.progress} aria-label={`Uploading ${s.file.name}`} />
              )}
              <button
                type="button"
                class="icon-button"
                aria-label={`Remove ${s.file.name || "file"}`}
                onClick={() => {
                  s.abort?.();
                  setSlots((l) => l.filter((x) => x.key !== s.key));
                }}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="composer-row">
        <button type="button" class="icon-button" aria-label="Attach files" title="Attach files" onClick={() => fileInput.current?.click()}>
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
          aria-controls={mention && candidates.length > 0 ? listId : undefined}
          aria-activedescendant={mention && candidates.length > 0 ? `${listId}-${mention.index}` : undefined}
          aria-invalid={tooLong}
          value={text}
          onInput={(e) => {
            const el = e.target as HTMLTextAreaElement;
            setText(el.value);
            drafts.set(draftKey, el.value);
            findMention(el.value, el.selectionStart ?? el.value.length);
            if (el.value.trim()) session.typingNow(channelId, threadRootId);
          }}
          onKeyDown={onKeyDown}
          onClick={(e) => {
            const el = e.target as HTMLTextAreaElement;
            findMention(el.value, el.selectionStart ?? el.value.length);
          }}
          onBlur={() => setMention(null)}
          onPaste={(e) => {
            const files = [...(e.clipboardData?.files ?? [])];
            if (files.length > 0) {
              e.preventDefault();
              addFiles(files);
            }
          }}
        />
        <button type="button" class="icon-button" aria-label="Insert emoji" title="Insert emoji" onClick={() => setPicking(true)}>
          ☺
        </button>
        <button type="button" class="button button-primary send-button" aria-label="Send" disabled={uploading || tooLong} onClick={send}>
          Send
        </button>
      </div>
      {tooLong && (
        <p class="composer-note" role="alert">
          {tooLongText}
        </p>
      )}
      {picking && <EmojiPicker session={session} title="Insert an emoji" onPick={insertText} onClose={() => setPicking(false)} />}
    </div>
  );
}
