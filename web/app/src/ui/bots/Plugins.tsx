// Plugins, for admins and the owner: each installed plugin with its state (running, enabled
// but not running, disabled) and its error (why it did not load, its last hook failure, or the
// limit that stopped it), Enable or Disable, Restart for one that is enabled but not running
// (SetPluginEnabled true loads it again), Delete; and installing one from a .js file or from
// source pasted in. An install the server refuses (the script does not compile or its top level
// fails) changes nothing, and its error is shown as the server gave it. The list follows
// plugins_changed, which admins get for every change, a stop by a limit included.

import { useEffect, useId, useState } from "preact/hooks";
import type { Plugin } from "../../gen/svc/v1/types_pb";
import { errorText, type Api } from "../../lib/api";
import { botClient } from "./client";
import { LIMITS, utf8Bytes } from "../../lib/chars";
import { formatSize } from "../../lib/upload";
import { useStore, type Store } from "../../state/store";
import { limited } from "../limits";
import { Confirm } from "../moderation/parts";
import "./bots.css";
import { ErrorRow, useLoaded } from "../common";

/** InstallPlugin takes at most 256 KB of source, a KB being 1,000 bytes as the server counts. */
const MAX_SOURCE = LIMITS.pluginSource.max;

export function Plugins(props: { store: Store; api: Api }) {
  const { store, api } = props;
  useStore(store, "plugins");
  // Loaded again on plugins_changed and after each change made here: a Disable then an Enable
  // make several loads at once, and only the newest one's answer is shown (useLoaded).
  const { list: plugins, error, reload } = useLoaded<Plugin>(() => botClient(api).listPlugins({}).then((res) => res.plugins));
  useEffect(() => store.em.on("plugins", () => void reload()), [store]);
  return (
    <div class="plugins">
      <InstallForm api={api} onInstalled={reload} />
      <ErrorRow error={error} />
      <h3 class="section-title">Installed plugins</h3>
      {plugins === null && !error && <p class="muted">Loading plugins…</p>}
      {plugins?.length === 0 && <p class="muted">No plugins yet.</p>}
      <ul class="plugin-list" aria-label="Plugins">
        {plugins?.map((p) => <PluginItem key={p.name} api={api} plugin={p} onChanged={reload} />)}
      </ul>
    </div>
  );
}

function InstallForm(props: { api: Api; onInstalled: () => void }) {
  const { api } = props;
  const [name, setName] = useState("");
  const [source, setSource] = useState("");
  const [fileName, setFileName] = useState("");
  const [error, setError] = useState("");
  const [done, setDone] = useState("");
  const [busy, setBusy] = useState(false);
  const size = utf8Bytes(source);
  // The name is its bot's username, sent trimmed.
  const nameCheck = limited(useId(), name.trim(), LIMITS.username);
  const readFile = async (f: File | undefined) => {
    if (!f) return;
    setError("");
    setDone("");
    if (f.size > MAX_SOURCE) {
      setError(`${f.name} is ${formatSize(f.size)}; a plugin is at most ${formatSize(MAX_SOURCE)}.`);
      return;
    }
    setSource(await f.text());
    setFileName(f.name);
    if (!name) setName(f.name.replace(/\.js$/i, "").toLowerCase());
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (nameCheck.over || size > MAX_SOURCE) return;
    setError("");
    setDone("");
    setBusy(true);
    try {
      const res = await botClient(api).installPlugin({ name: name.trim(), source });
      setDone(`Installed ${res.plugin?.name ?? name}${res.plugin?.running ? "; it is running." : "."}`);
      setName("");
      setSource("");
      setFileName("");
      props.onInstalled();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form install-plugin" onSubmit={submit} aria-label="Install a plugin">
      <div class="field-row">
        <label class="field">
          <span>Name (also its bot's username)</span>
          <input class="input" value={name} required autoComplete="off" spellcheck={false} {...nameCheck.field} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          {nameCheck.note}
        </label>
        <div class="field plugin-file">
          <span>Source</span>
          <label class="button">
            Choose a .js file
            <input type="file" accept=".js,text/javascript,application/javascript" class="visually-hidden" onChange={(e) => void readFile((e.target as HTMLInputElement).files?.[0])} />
          </label>
        </div>
      </div>
      <label class="field">
        <span>{fileName ? `From ${fileName}, or edit it here` : "Or paste the source"}</span>
        <textarea
          class="input plugin-source"
          rows={8}
          spellcheck={false}
          value={source}
          placeholder={'chat.on("message", (m) => {\n  if (m.text === "!ping") chat.sendMessage({ channelId: m.channelId, text: "pong" });\n});'}
          onInput={(e) => setSource((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <p class={size > MAX_SOURCE ? "error-row small" : "muted small"}>
        {formatSize(size)} of {formatSize(MAX_SOURCE)}. The plugin API is in docs/plugins.md; installing a name again replaces that plugin.
      </p>
      {error && (
        <pre class="plugin-error" role="alert">
          {error}
        </pre>
      )}
      {done && (
        <p class="ok-row" role="status">
          {done}
        </p>
      )}
      <div class="dialog-actions">
        <button type="submit" class="button button-primary" disabled={busy || !name.trim() || !source.trim() || size > MAX_SOURCE || nameCheck.over}>
          {busy ? "Installing…" : "Install"}
        </button>
      </div>
    </form>
  );
}

function PluginItem(props: { api: Api; plugin: Plugin; onChanged: () => void }) {
  const { api, plugin: p } = props;
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const state = !p.enabled ? "Disabled" : p.running ? "Running" : "Not running";
  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError("");
    try {
      await fn();
      props.onChanged();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
      setConfirm(false);
    }
  };
  return (
    <li class="plugin-item" aria-label={`${p.name}, ${state.toLowerCase()}`}>
      <div class="plugin-row">
        <span class={`plugin-state plugin-state-${state.toLowerCase().replace(" ", "-")}`}>{state}</span>
        <strong class="plugin-name">{p.name}</strong>
        {!confirm && (
          <span class="plugin-actions">
            {p.enabled && !p.running && (
              <button type="button" class="button" disabled={busy} aria-label={`Restart ${p.name}`} onClick={() => act(() => botClient(api).setPluginEnabled({ name: p.name, enabled: true }))}>
                Restart
              </button>
            )}
            <button type="button" class="button" disabled={busy} aria-label={`${p.enabled ? "Disable" : "Enable"} ${p.name}`} onClick={() => act(() => botClient(api).setPluginEnabled({ name: p.name, enabled: !p.enabled }))}>
              {p.enabled ? "Disable" : "Enable"}
            </button>
            <button type="button" class="button button-danger" aria-label={`Delete ${p.name}`} onClick={() => setConfirm(true)}>
              Delete
            </button>
          </span>
        )}
      </div>
      {p.error && (
        <pre class="plugin-error">
          {p.error}
        </pre>
      )}
      {confirm && (
        <Confirm
          text={`Delete ${p.name}? Its file, its bot and its stored data go; the bot's messages stay.`}
          action="Delete"
          busy={busy}
          onConfirm={() => act(() => botClient(api).deletePlugin({ name: p.name }))}
          onCancel={() => setConfirm(false)}
        />
      )}
      <ErrorRow error={error} />
    </li>
  );
}
