// Pieces the administration screens share: a call's outcome shown beside its form (the
// server's own words when it refuses), an image field that uploads with a progress bar, the
// community settings call, and the hash routes of the screens (routes.ts).

import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { Attachment } from "../../gen/svc/v1/types_pb";
import { absUrl, errorText, type Api } from "../../lib/api";
import { upload } from "../../lib/upload";

export { communityHash, type Tab } from "./routes";

export type Action = {
  busy: boolean;
  error: string;
  done: string;
  /** Runs fn; its refusal shows as error (prefixed by what), its success as done. */
  run: <T>(fn: () => Promise<T>, done?: string, what?: string) => Promise<T | undefined>;
  clear: () => void;
};

/** One form's call: busy while it runs, then the server's refusal or a word of success. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [done, setDone] = useState("");
  return {
    busy,
    error,
    done,
    clear: () => {
      setError("");
      setDone("");
    },
    run: async (fn, doneText = "", what = "") => {
      setBusy(true);
      setError("");
      setDone("");
      try {
        const res = await fn();
        setDone(doneText);
        return res;
      } catch (e) {
        setError((what ? what + ": " : "") + errorText(e));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
  };
}

/** The outcome of an Action, under its form: an alert for a refusal, a status for success. */
export function Outcome(props: { action: Action; children?: ComponentChildren }) {
  const { error, done } = props.action;
  return (
    <>
      {error && (
        <p class="error-row" role="alert">
          {error}
          {props.children}
        </p>
      )}
      {!error && done && (
        <p class="ok-row" role="status">
          {done}
        </p>
      )}
    </>
  );
}

const IMAGE_TYPES = "image/png,image/jpeg,image/gif,image/webp,image/avif";

/**
 * An image setting (icon, banner, channel header): the current picture, a button to upload a new
 * one and one to remove it. onUploaded gets the finished upload and saves it.
 */
export function ImageField(props: {
  /** The server: its URL (for the picture shown) and its API (for the upload). */
  base: string;
  api: Api;
  label: string;
  url: string;
  shape: "icon" | "banner";
  onUploaded: (a: Attachment) => Promise<unknown>;
  onRemove: () => Promise<unknown>;
  disabled?: boolean;
}) {
  const [progress, setProgress] = useState<number | null>(null);
  const action = useAction();
  const choose = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    input.value = "";
    if (!file) return;
    setProgress(0);
    await action.run(async () => {
      try {
        const a = await upload(props.api, file, setProgress).promise;
        await props.onUploaded(a);
      } finally {
        setProgress(null);
      }
    }, "Saved.");
  };
  return (
    <div class="image-field" role="group" aria-label={props.label}>
      <span class="image-field-label">{props.label}</span>
      <div class="image-field-row">
        <div class={`image-preview image-preview-${props.shape}`}>
          {props.url ? <img src={absUrl(props.base, props.url)} alt={`The ${props.label.toLowerCase()}`} /> : <span class="muted small">None</span>}
        </div>
        <div class="image-field-controls">
          <label class={props.disabled || action.busy ? "button disabled" : "button"}>
            {props.url ? "Change…" : "Upload…"}
            <input
              type="file"
              accept={IMAGE_TYPES}
              class="visually-hidden"
              aria-label={`Upload the ${props.label.toLowerCase()}`}
              disabled={props.disabled || action.busy}
              onChange={(e) => choose(e.currentTarget)}
            />
          </label>
          {props.url && (
            <button type="button" class="button" disabled={props.disabled || action.busy} onClick={() => action.run(props.onRemove, "Removed.")}>
              Remove
            </button>
          )}
          {progress !== null && <progress max={1} value={progress} aria-label={`Uploading the ${props.label.toLowerCase()}`} />}
        </div>
      </div>
      <Outcome action={action} />
    </div>
  );
}

export { copyText } from "../../lib/clipboard";

/** A duration in words: "5 minutes", "3 days". */
export function inWords(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
  ];
  for (const [size, name] of units) {
    if (ms >= size) {
      const n = Math.round(ms / size);
      return `${n} ${name}${n === 1 ? "" : "s"}`;
    }
  }
  return "less than a minute";
}
