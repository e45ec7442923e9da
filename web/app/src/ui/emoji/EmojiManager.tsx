// The community's custom emoji: every member sees them and can export them all as a zip;
// moderators and higher upload images or zips of them (one result per image: added, already
// there, or refused with the server's reason) and delete them. The list is the session's, which
// GET /emoji fills and emoji_changed refreshes, so an upload or deletion anywhere shows here.

import { useState } from "preact/hooks";
import { EmojiUploadStatus, type EmojiUploadResult } from "../../gen/svc/v1/types_pb";
import { errorText, type Api } from "../../lib/api";
import { downloadEmojiZip, uploadEmoji } from "../../lib/emojiFiles";
import { isModerator } from "../../lib/ranks";
import { formatSize } from "../../lib/upload";
import type { Commands } from "../../state/commands";
import { useStore, type Store } from "../../state/store";
import { Confirm } from "../moderation/parts";
import "./emoji.css";
import { ErrorRow } from "../common";

/** The most a request may carry (POST /emoji: 64,000,000 bytes). */
const MAX_REQUEST = 64_000_000;

const STATUS: Record<number, { text: string; cls: string }> = {
  [EmojiUploadStatus.ADDED]: { text: "Added", cls: "result-added" },
  [EmojiUploadStatus.EXISTS]: { text: "Already exists", cls: "result-exists" },
  [EmojiUploadStatus.REJECTED]: { text: "Rejected", cls: "result-rejected" },
};

export function EmojiManager(props: { store: Store; act: Pick<Commands, "deleteEmoji">; api: Api }) {
  const { act, api } = props;
  const state = useStore(props.store, "emoji", "me");
  const mod = isModerator(state);
  const [filter, setFilter] = useState("");
  const [progress, setProgress] = useState<number | null>(null);
  const [results, setResults] = useState<EmojiUploadResult[] | null>(null);
  const [error, setError] = useState("");
  const [exporting, setExporting] = useState(false);
  const [deleting, setDeleting] = useState("");

  const upload = async (files: File[]) => {
    if (files.length === 0) return;
    setError("");
    setResults(null);
    const size = files.reduce((n, f) => n + f.size, 0);
    if (size > MAX_REQUEST) {
      setError(`These files are ${formatSize(size)}; one upload carries at most ${formatSize(MAX_REQUEST)}.`);
      return;
    }
    setProgress(0);
    try {
      setResults(await uploadEmoji(api, files, setProgress));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setProgress(null);
    }
  };

  const exportAll = async () => {
    setError("");
    setExporting(true);
    try {
      await downloadEmojiZip(api, `${(state.info?.name || "hearth").replace(/[^\p{L}\p{N}_-]+/gu, "-")}-emoji.zip`);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setExporting(false);
    }
  };

  const remove = async (name: string) => {
    await act.deleteEmoji(name);
    setDeleting("");
  };

  const all = [...state.emoji.entries()].sort(([a], [b]) => a.localeCompare(b));
  const q = filter.trim().toLowerCase().replace(/:/g, "");
  const shown = q ? all.filter(([name]) => name.includes(q)) : all;
  const counts = results && countResults(results);
  return (
    <div class="emoji-manager">
      <div class="emoji-toolbar">
        <p class="muted small">
          {all.length === 0 ? "No custom emoji yet." : `${all.length} custom ${all.length === 1 ? "emoji" : "emoji"}. Write them as :name: in messages and reactions.`}
        </p>
        <button type="button" class="button" disabled={exporting || all.length === 0} onClick={exportAll}>
          {exporting ? "Exporting…" : "Export all (.zip)"}
        </button>
      </div>
      {mod && (
        <div
          class="emoji-upload"
          onDragOver={(e) => {
            if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
          }}
          onDrop={(e) => {
            e.preventDefault();
            void upload([...(e.dataTransfer?.files ?? [])]);
          }}
        >
          <label class="button button-primary">
            Upload images or a zip
            <input
              type="file"
              multiple
              accept="image/png,image/gif,image/webp,.zip,application/zip"
              class="visually-hidden"
              disabled={progress !== null}
              onChange={(e) => {
                const input = e.target as HTMLInputElement;
                void upload([...(input.files ?? [])]);
                input.value = "";
              }}
            />
          </label>
          <p class="muted small">PNG, GIF or WebP, up to 256 KB and 512 × 512 pixels each, or zips of them. The name comes from the file name; a name that is taken is skipped.</p>
          {progress !== null && <progress max={1} value={progress} aria-label="Uploading emoji" />}
        </div>
      )}
      <ErrorRow error={error} />
      {results && counts && (
        <section class="upload-results" aria-label="Upload results">
          <p role="status">
            {counts.added} added, {counts.exists} already there, {counts.rejected} rejected.
          </p>
          <table class="results-table">
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Name</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {results.map((r, i) => {
                const st = STATUS[r.status] ?? { text: "Unknown", cls: "" };
                return (
                  <tr key={i} class={st.cls}>
                    <td class="result-file">{r.file}</td>
                    <td class="result-name">
                      {r.status !== EmojiUploadStatus.REJECTED && state.emoji.has(r.name) && <img src={state.emoji.get(r.name)} alt="" width={20} height={20} />}
                      {r.name && <code class="code">:{r.name}:</code>}
                    </td>
                    <td>
                      <span class="result-status">{st.text}</span>
                      {r.error && <span class="result-error">{r.error}</span>}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
      {all.length > 0 && (
        <input type="search" class="input" placeholder="Find an emoji" aria-label="Find an emoji" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
      )}
      <ul class="emoji-list" aria-label="Custom emoji">
        {shown.map(([name, url]) => (
          <li key={name} class="emoji-item">
            <img src={url} alt="" width={32} height={32} loading="lazy" />
            <code class="emoji-name">:{name}:</code>
            {mod &&
              (deleting === name ? (
                <Confirm text={`Delete :${name}:?`} action="Delete" onConfirm={() => remove(name)} onCancel={() => setDeleting("")} />
              ) : (
                <button type="button" class="icon-button" aria-label={`Delete :${name}:`} title="Delete" onClick={() => setDeleting(name)}>
                  🗑
                </button>
              ))}
          </li>
        ))}
      </ul>
      {q && shown.length === 0 && <p class="muted">No emoji named like “{filter}”.</p>}
    </div>
  );
}

function countResults(results: EmojiUploadResult[]) {
  const c = { added: 0, exists: 0, rejected: 0 };
  for (const r of results) {
    if (r.status === EmojiUploadStatus.ADDED) c.added++;
    else if (r.status === EmojiUploadStatus.EXISTS) c.exists++;
    else c.rejected++;
  }
  return c;
}
