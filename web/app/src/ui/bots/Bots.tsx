// Bots, for admins and the owner: the community's bots, a new bot, and each bot's token, which
// the server gives once (on creation and on rotation) and keeps only as a hash: it is shown
// once here with a Copy button, and gone when the person closes it. Rotating ends the old
// token at once; deleting keeps the bot's messages. A plugin's bot has no token and goes with
// its plugin, so neither is offered for it; nor for a bot of the person's own rank or higher.

import { useEffect, useId, useRef, useState } from "preact/hooks";
import { MemberKind, type Member, type Plugin } from "../../gen/svc/v1/types_pb";
import { errorText, type Api } from "../../lib/api";
import { botClient } from "./client";
import { LIMITS } from "../../lib/chars";
import { outranksRank } from "../../lib/ranks";
import { useStore, type State, type Store } from "../../state/store";
import { Avatar, ErrorRow, useLoaded } from "../common";
import { limited } from "../limits";
import { Confirm, copyText } from "../moderation/parts";
import "./bots.css";

type Shown = { botId: string; name: string; token: string; rotated: boolean };

export function Bots(props: { store: Store; api: Api }) {
  const { store, api } = props;
  const state = useStore(store, "members", "plugins");
  // Only the newest load's answer is shown (useLoaded): a create and a delete close together
  // load the lists twice, and the older answer may come last.
  const { list: bots, error, reload: reloadBots } = useLoaded<Member>(() => botClient(api).listBots({}).then((res) => res.bots));
  // Which bots are plugins' (they have no token to rotate); a refusal only hides that.
  const { list: plugins, reload: reloadPlugins } = useLoaded<Plugin>(() => botClient(api).listPlugins({}).then((res) => res.plugins));
  const pluginBots = new Set((plugins ?? []).map((p) => p.botId).filter(Boolean));
  const [token, setToken] = useState<Shown | null>(null);
  const load = () => {
    void reloadBots();
    void reloadPlugins();
  };
  // Bots come and go with member_joined and member_left: the list follows the members (the
  // first load is useLoaded's own).
  const botCount = [...state.members.values()].filter((m) => m.kind === MemberKind.BOT).length;
  const seenCount = useRef(botCount);
  useEffect(() => {
    if (botCount === seenCount.current) return;
    seenCount.current = botCount;
    load();
  }, [botCount]);
  const list = (bots ?? []).map((b) => state.members.get(b.id) ?? b).sort((a, b) => a.username.localeCompare(b.username));
  return (
    <div class="bots">
      {token ? (
        <TokenBox shown={token} onDone={() => setToken(null)} />
      ) : (
        <NewBot api={api} onCreated={(bot, t) => (setToken({ botId: bot.id, name: bot.displayName || bot.username, token: t, rotated: false }), load())} />
      )}
      <ErrorRow error={error} />
      <h3 class="section-title">Bots</h3>
      {bots === null && !error && <p class="muted">Loading bots…</p>}
      {bots?.length === 0 && <p class="muted">No bots yet.</p>}
      <ul class="bot-list" aria-label="Bots">
        {list.map((b) => (
          <BotItem key={b.id} state={state} base={store.base} api={api} bot={b} plugin={pluginBots.has(b.id)} onToken={(t) => setToken({ botId: b.id, name: b.displayName || b.username, token: t, rotated: true })} onDeleted={load} />
        ))}
      </ul>
    </div>
  );
}

function NewBot(props: { api: Api; onCreated: (bot: Member, token: string) => void }) {
  const { api } = props;
  const [username, setUsername] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const id = useId();
  const usernameCheck = limited(id + "-username", username.trim(), LIMITS.username);
  const nameCheck = limited(id + "-name", displayName.trim(), LIMITS.displayName);
  const over = usernameCheck.over || nameCheck.over;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (over) return;
    setError("");
    setBusy(true);
    try {
      const res = await botClient(api).createBot({ username: username.trim(), displayName: displayName.trim() });
      setUsername("");
      setDisplayName("");
      if (res.bot) props.onCreated(res.bot, res.token);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form new-bot" onSubmit={submit} aria-label="New bot">
      <div class="field-row">
        <label class="field">
          <span>Username</span>
          <input class="input" value={username} required autoComplete="off" spellcheck={false} {...usernameCheck.field} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} />
          {usernameCheck.note}
        </label>
        <label class="field">
          <span>Display name (optional)</span>
          <input class="input" value={displayName} autoComplete="off" {...nameCheck.field} onInput={(e) => setDisplayName((e.target as HTMLInputElement).value)} />
          {nameCheck.note}
        </label>
      </div>
      <p class="muted small">2 to 32 of a–z, 0–9, _ . -. The bot calls the API with its token; see the API reference.</p>
      <ErrorRow error={error} />
      <div class="dialog-actions">
        <button type="submit" class="button button-primary" disabled={busy || !username.trim() || over}>
          {busy ? "Creating…" : "Create bot"}
        </button>
      </div>
    </form>
  );
}

/** The token, once: a read-only box, Copy, and Done, after which nothing here holds it. */
function TokenBox(props: { shown: Shown; onDone: () => void }) {
  const { shown } = props;
  const box = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"" | "yes" | "no">("");
  useEffect(() => {
    box.current?.focus();
    box.current?.select();
  }, [shown.token]);
  return (
    <section class="token-box" aria-label={`The token of ${shown.name}`}>
      <p>
        <strong>{shown.rotated ? `A new token for ${shown.name}.` : `${shown.name} is ready.`}</strong> Copy its token now: it is shown only this once. The
        server keeps only a hash of it{shown.rotated ? ", and the old token no longer works" : ""}.
      </p>
      <div class="token-row">
        <input ref={box} class="input token-input" readOnly value={shown.token} aria-label="Bot token" spellcheck={false} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button
          type="button"
          class="button button-primary"
          onClick={async () => setCopied((await copyText(shown.token, box.current)) ? "yes" : "no")}
        >
          Copy
        </button>
      </div>
      <p class="small" role="status">
        {copied === "yes" ? "Copied to the clipboard." : copied === "no" ? "The browser would not copy: select the token and copy it yourself." : ""}
      </p>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onDone}>
          Done, I have copied it
        </button>
      </div>
    </section>
  );
}

function BotItem(props: { state: Pick<State, "me" | "members">; base: string; api: Api; bot: Member; plugin: boolean; onToken: (token: string) => void; onDeleted: () => void }) {
  const { state, api, bot } = props;
  const [confirm, setConfirm] = useState<"" | "rotate" | "delete">("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const name = bot.displayName || bot.username;
  const manage = !props.plugin && outranksRank(state, bot.role);
  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError("");
    try {
      await fn();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
      setConfirm("");
    }
  };
  return (
    <li class="bot-item" aria-label={name}>
      <div class="bot-row">
        <Avatar base={props.base} member={bot} size={32} />
        <div class="bot-who">
          <p>
            <strong>{name}</strong> <span class="muted">@{bot.username}</span> {props.plugin && <span class="tag">plugin</span>}
          </p>
          {bot.bio && <p class="muted small">{bot.bio}</p>}
        </div>
        {manage && !confirm && (
          <span class="bot-actions">
            <button type="button" class="button" aria-label={`Rotate the token of ${name}`} onClick={() => setConfirm("rotate")}>
              Rotate token
            </button>
            <button type="button" class="button button-danger" aria-label={`Delete ${name}`} onClick={() => setConfirm("delete")}>
              Delete
            </button>
          </span>
        )}
      </div>
      {confirm === "rotate" && (
        <Confirm
          text={`Give ${name} a new token? The old one stops working at once.`}
          action="Rotate"
          busy={busy}
          onCancel={() => setConfirm("")}
          onConfirm={() =>
            act(async () => {
              const res = await botClient(api).rotateBotToken({ botId: bot.id });
              props.onToken(res.token);
            })
          }
        />
      )}
      {confirm === "delete" && (
        <Confirm
          text={`Delete ${name}? Its token stops working; its messages stay.`}
          action="Delete"
          busy={busy}
          onCancel={() => setConfirm("")}
          onConfirm={() =>
            act(async () => {
              await botClient(api).deleteBot({ botId: bot.id });
              props.onDeleted();
            })
          }
        />
      )}
      <ErrorRow error={error} />
    </li>
  );
}
