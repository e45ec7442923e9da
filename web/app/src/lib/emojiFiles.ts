// The custom emoji's plain endpoints: POST /emoji (images or zips of them, one result per image)
// with upload progress, which only XMLHttpRequest reports, and GET /emoji.zip (every emoji),
// saved as a download. Both need the Bearer token, so neither can be a plain link.

import { UploadEmojiResponseSchema, type EmojiUploadResult } from "../gen/svc/v1/types_pb";
import type { Api } from "./api";
import { postForm } from "./upload";

/** POST /emoji with every file as a part named "file"; onProgress gets the fraction sent. */
export async function uploadEmoji(api: Api, files: File[], onProgress: (fraction: number) => void): Promise<EmojiUploadResult[]> {
  const form = new FormData();
  for (const f of files) form.append("file", f, f.name);
  return (await postForm(api, "/emoji", form, UploadEmojiResponseSchema, "the upload failed", onProgress).promise).results;
}

/** GET /emoji.zip, handed to the browser as the download emoji.zip. */
export async function downloadEmojiZip(api: Api, fileName: string): Promise<void> {
  const res = await fetch(api.base + "/emoji.zip", { headers: { Authorization: "Bearer " + ((await api.token()) ?? "") } });
  if (!res.ok) {
    let msg = "";
    try {
      msg = ((await res.json()) as { error?: string }).error ?? "";
    } catch {
      // Not JSON: the status says enough.
    }
    throw new Error(msg || `the export failed (HTTP ${res.status})`);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has taken the blob by the next task; the URL can go.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
