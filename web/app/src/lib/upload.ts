// POST /upload with XMLHttpRequest, because fetch cannot report upload progress.

import { fromJson } from "@bufbuild/protobuf";
import { AttachmentSchema, type Attachment } from "../gen/svc/v1/types_pb";
import type { Api } from "./api";

export type Upload = {
  promise: Promise<Attachment>;
  abort: () => void;
};

/** Uploads one file; onProgress gets the fraction sent, 0 to 1. */
export function upload(api: Api, file: File, onProgress: (fraction: number) => void): Upload {
  const xhr = new XMLHttpRequest();
  let aborted = false;
  const promise = api.token().then((token) => new Promise<Attachment>((resolve, reject) => {
    if (aborted) return reject(new Error("upload cancelled"));
    xhr.open("POST", api.base + "/upload");
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
        resolve(fromJson(AttachmentSchema, body as never, { ignoreUnknownFields: true }));
        return;
      }
      const msg = (body as { error?: string } | undefined)?.error;
      reject(new Error(msg || `upload failed (HTTP ${xhr.status})`));
    };
    xhr.onerror = () => reject(new Error("cannot reach the server"));
    xhr.onabort = () => reject(new Error("upload cancelled"));
    const form = new FormData();
    form.append("file", file, file.name || "pasted-image.png");
    xhr.send(form);
  }));
  return {
    promise,
    abort: () => {
      aborted = true;
      xhr.abort();
    },
  };
}

/** A file size for people: 1.2 MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(bytes < 10_000 ? 1 : 0)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
