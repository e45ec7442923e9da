// POST /upload (and the other multipart endpoints) with XMLHttpRequest, because fetch cannot
// report upload progress.

import type { DescMessage, JsonValue, MessageShape } from "@bufbuild/protobuf";
import { AttachmentSchema, type Attachment } from "../gen/svc/v1/types_pb";
import type { Api } from "./api";
import { Lazy } from "./lazy";

/** Protobuf's JSON reader (lib/protojson.ts), loaded when the first upload starts. */
const protojson = new Lazy(() => import("./protojson"));

export type Upload<T = Attachment> = {
  promise: Promise<T>;
  abort: () => void;
};

/**
 * POSTs form to path with the Bearer token; onProgress gets the fraction sent, 0 to 1. The
 * answer is read as schema's JSON; a refusal rejects with the server's message (or failed and
 * the status when it gave none).
 */
export function postForm<S extends DescMessage>(
  api: Api,
  path: string,
  form: FormData,
  schema: S,
  failed: string,
  onProgress: (fraction: number) => void,
): Upload<MessageShape<S>> {
  const xhr = new XMLHttpRequest();
  let aborted = false;
  // The reader of the answer loads while the file goes up.
  const reader = protojson.load();
  reader.catch(() => {});
  const promise = api.token().then((token) => new Promise<MessageShape<S>>((resolve, reject) => {
    if (aborted) return reject(new Error("upload cancelled"));
    xhr.open("POST", api.base + path);
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
        resolve(reader.then((m) => m.readJson(schema, body as JsonValue), () => Promise.reject(new Error("cannot reach the server"))));
        return;
      }
      const msg = (body as { error?: string } | undefined)?.error;
      reject(new Error(msg || `${failed} (HTTP ${xhr.status})`));
    };
    xhr.onerror = () => reject(new Error("cannot reach the server"));
    xhr.onabort = () => reject(new Error("upload cancelled"));
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

/** Uploads one file; onProgress gets the fraction sent, 0 to 1. */
export function upload(api: Api, file: File, onProgress: (fraction: number) => void): Upload {
  const form = new FormData();
  form.append("file", file, file.name || "pasted-image.png");
  return postForm(api, "/upload", form, AttachmentSchema, "upload failed", onProgress);
}

/** A file size for people: 1.2 MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(bytes < 10_000 ? 1 : 0)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
