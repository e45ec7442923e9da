// What the person has put in a message box and not sent: its text and its files, per server,
// channel and thread, for the tab's life (memory only: a reload starts with empty boxes, as
// files cannot be kept across it). Uploads run here rather than in the composer, so a file
// still uploading when the person goes to another channel is there, uploaded, when they come
// back, and a failed one stays shown until they remove it or try it again.

import { create } from "@bufbuild/protobuf";
import { AttachmentSchema, type Attachment } from "../gen/svc/v1/types_pb";
import type { Api } from "../lib/api";
import { errorText } from "../lib/api";
import { Emitter } from "../lib/emitter";
import { formatSize, upload } from "../lib/upload";

export const ATTACHMENTS_MAX = 10;
export const UPLOAD_MAX = 25_000_000;

/** A file in a message box: uploading, uploaded (attachment), or failed (error). */
export type DraftFile = {
  key: number;
  name: string;
  size: number;
  /** The file itself, to upload again after a failure (none for a file put back by Edit). */
  file?: File;
  progress: number;
  attachment?: Attachment;
  /** When the upload finished, in Unix milliseconds: the server deletes it unused after a day. */
  uploadedAt?: number;
  error?: string;
  /** The upload can be tried again (not a file over the size limit). */
  retry?: boolean;
  abort?: () => void;
};

/** The message a message box answers (EXTENSIONS.md 1): its id, author and text as shown. */
export type ReplyRef = { id: string; authorId: string; text: string };

export type Draft = { text: string; files: DraftFile[]; replyTo?: ReplyRef };

/** A file once uploaded, as a message not yet sent keeps it. */
export type SentFile = { id: string; name: string; contentType: string; width: number; height: number; size?: number; uploadedAt?: number };

const EMPTY: Draft = { text: "", files: [] };
const drafts = new Map<string, Draft>();
let fileKeys = 0;

/** Changes, by topic draftTopic(key). */
export const draftsEm = new Emitter<DraftTopic>();

/** A message box's changes: "draft:" and its draftKey. */
export type DraftTopic = `draft:${string}`;

export function draftKey(base: string, channelId: string, threadRootId: string): string {
  return base + "\n" + channelId + "/" + threadRootId;
}

export function draftTopic(key: string): DraftTopic {
  return `draft:${key}`;
}

export function getDraft(key: string): Draft {
  return drafts.get(key) ?? EMPTY;
}

function put(key: string, d: Draft): void {
  if (d.text === "" && d.files.length === 0 && !d.replyTo) drafts.delete(key);
  else drafts.set(key, d);
  draftsEm.emit(draftTopic(key));
}

export function setDraftText(key: string, text: string): void {
  put(key, { ...getDraft(key), text });
}

function setFiles(key: string, fn: (files: DraftFile[]) => DraftFile[]): void {
  const d = getDraft(key);
  put(key, { ...d, files: fn(d.files) });
}

function updateFile(key: string, fileKey: number, change: Partial<DraftFile>): void {
  setFiles(key, (files) => files.map((f) => (f.key === fileKey ? { ...f, ...change } : f)));
}

/** Makes a message box answer a message, or nothing (undefined). */
export function setReplyTo(key: string, replyTo: ReplyRef | undefined): void {
  put(key, { ...getDraft(key), replyTo });
}

/** Empties a message box (after its message was sent: its files went with it). */
export function clearDraft(key: string): void {
  put(key, EMPTY);
}

/** Forgets every draft kept for a server (at a sign-out), stopping their uploads. */
export function forgetDrafts(base: string): void {
  for (const [key, d] of [...drafts]) {
    if (!key.startsWith(base + "\n")) continue;
    d.files.forEach((f) => f.abort?.());
    drafts.delete(key);
    draftsEm.emit(draftTopic(key));
  }
}

/** Adds files to a message box and uploads them; returns how many did not fit. */
export function addFiles(api: Api, key: string, files: File[]): number {
  const room = Math.max(0, ATTACHMENTS_MAX - getDraft(key).files.length);
  for (const file of files.slice(0, room)) {
    const f: DraftFile = { key: ++fileKeys, name: file.name || "pasted image", size: file.size, file, progress: 0 };
    if (file.size > UPLOAD_MAX) {
      setFiles(key, (l) => [...l, { ...f, error: `${formatSize(file.size)}: the limit is 25 MB` }]);
      continue;
    }
    setFiles(key, (l) => [...l, f]);
    start(api, key, f.key, file);
  }
  return Math.max(0, files.length - room);
}

function start(api: Api, key: string, fileKey: number, file: File): void {
  const u = upload(api, file, (p) => updateFile(key, fileKey, { progress: p }));
  updateFile(key, fileKey, { abort: u.abort, error: undefined, retry: undefined, progress: 0 });
  u.promise.then(
    (a) => updateFile(key, fileKey, { attachment: a, uploadedAt: Date.now(), progress: 1, abort: undefined }),
    (e) => updateFile(key, fileKey, { error: errorText(e), retry: true, abort: undefined }),
  );
}

/** Uploads a failed file again. */
export function retryFile(api: Api, key: string, fileKey: number): void {
  const f = getDraft(key).files.find((x) => x.key === fileKey);
  if (f?.file && f.error && f.retry) start(api, key, fileKey, f.file);
}

/** Takes a file out of a message box, stopping its upload. */
export function removeFile(key: string, fileKey: number): void {
  // A removed file's upload, answered afterwards, must not bring it back: updateFile finds no
  // file with its key and changes nothing.
  getDraft(key).files.find((x) => x.key === fileKey)?.abort?.();
  setFiles(key, (l) => l.filter((x) => x.key !== fileKey));
}

/** An unused upload is deleted a day after it was made; an hour's margin for the clocks. */
const UPLOAD_KEPT_MS = 23 * 3600_000;

/**
 * Puts a message that was not sent back in its message box, to be changed and sent again: its
 * text, and its files that are still on the server. Refused (false) while the box holds a draft
 * of its own, which the message would otherwise replace. gone lists the files too old to be
 * there any more.
 */
export function restoreDraft(key: string, text: string, files: SentFile[], now: number): { ok: boolean; gone: string[] } {
  const d = getDraft(key);
  if (d.text.trim() !== "" || d.files.length > 0) return { ok: false, gone: [] };
  const gone: string[] = [];
  const back: DraftFile[] = [];
  for (const a of files) {
    if (a.uploadedAt !== undefined && now - a.uploadedAt > UPLOAD_KEPT_MS) {
      gone.push(a.name);
      continue;
    }
    const attachment = create(AttachmentSchema, { id: a.id, name: a.name, contentType: a.contentType, width: a.width, height: a.height, size: BigInt(a.size ?? 0) });
    back.push({ key: ++fileKeys, name: a.name, size: a.size ?? 0, progress: 1, attachment, uploadedAt: a.uploadedAt });
  }
  put(key, { text, files: back });
  return { ok: true, gone };
}
