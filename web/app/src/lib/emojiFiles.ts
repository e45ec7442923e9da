// The custom emoji's plain endpoints: POST /emoji (images or zips of them, one result per image)
// with upload progress, which only XMLHttpRequest reports, and GET /emoji.zip (every emoji),
// saved as a download. Both need the Bearer token, so neither can be a plain link.

import { fromJson } from "@bufbuild/protobuf";
import { UploadEmojiResponseSchema, type EmojiUploadResult } from "../gen/svc/v1/types_pb";
import type { Api } from "./api";

/** POST /emoji with every file as a part named "file"; onProgress gets the fraction sent. */
export function uploadEmoji(api: Api, files: File[], onProgress: (fraction: number) => void): Promise<EmojiUploadResult[]> {
  return api.token().then(
    (token) =>
      new Promise<EmojiUploadResult[]>((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open("POST", api.base + "/emoji");
        if (token) xhr.setRequestHeader("Authorization", "Bearer " + token);
        xhr.upload.onprogress = (e) => {
          if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
        };
        xhr.onload = () => {
          let body: unknown;
          try {
            body = JSON.parse(xhr.responseText);
          } catch {
            body = undefined;
          }
          if (xhr.status === 200 && body) {
            onProgress(1);
            resolve(fromJson(UploadEmojiResponseSchema, body as never, { ignoreUnknownFields: true }).results);
            return;
          }
          reject(new Error((body as { error?: string } | undefined)?.error || `the upload failed (HTTP ${xhr.status})`));
        };
        xhr.onerror = () => reject(new Error("cannot reach the server"));
        const form = new FormData();
        for (const f of files) form.append("file", f, f.name);
        xhr.send(form);
      }),
  );
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
