// The moderation settings (GetModerationSettings, for moderators and higher; changed by admins
// and the owner): blocked words, the most mentions a message may hold, and who must sign in
// with two steps. The filters apply to members below moderator, whose message is refused
// (their text stays in their message box) with an audit entry.

import { useEffect, useId, useState } from "preact/hooks";
import { MemberRole, type ModerationSettings } from "../../gen/svc/v1/types_pb";
import { chars, LIMITS } from "../../lib/chars";
import { errorText, type Api } from "../../lib/api";
import { isAdmin } from "../../lib/ranks";
import { useStore, type Store } from "../../state/store";
import { ErrorRow } from "../common";
import { Outcome, useAction } from "../admin/parts";
import "./moderation.css";

/** The server's limits (UpdateModerationSettings). */
const MAX_WORDS = 500;
const MAX_MENTIONS = 1000;

const TWO_STEP: [MemberRole, string][] = [
  [MemberRole.UNSPECIFIED, "Nobody"],
  [MemberRole.MEMBER, "Members and up (everyone)"],
  [MemberRole.MODERATOR, "Moderators and up"],
  [MemberRole.ADMIN, "Admins and up"],
  [MemberRole.OWNER, "The owner"],
];

export function Filters(props: { store: Store; api: Api }) {
  const { api } = props;
  const admin = isAdmin(useStore(props.store, "me"));
  const [settings, setSettings] = useState<ModerationSettings | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    api.server
      .getModerationSettings({})
      .then((res) => setSettings(res.settings ?? null))
      .catch((e) => setError(errorText(e)));
  }, []);
  if (!settings) return error ? <ErrorRow error={error} /> : <p class="muted small">Loading the filters…</p>;
  return <FiltersForm settings={settings} admin={admin} api={api} />;
}

/** What is wrong with a list of blocked words, or "". */
export function wordsError(words: string[]): string {
  if (words.length > MAX_WORDS) return `At most ${MAX_WORDS} blocked words; the list has ${words.length}.`;
  const long = words.find((w) => chars(w) > LIMITS.blockedWord.max);
  if (long) return `“${long}” is ${chars(long)} characters long: a blocked word is at most ${LIMITS.blockedWord.max}.`;
  const star = words.find((w) => w.slice(0, -1).includes("*"));
  if (star) return `“${star}”: a * can only end a word (it matches any ending).`;
  return "";
}

function FiltersForm(props: { settings: ModerationSettings; admin: boolean; api: Api }) {
  const { admin } = props;
  // The settings as saved: what the form's changes are measured against.
  const [settings, setSettings] = useState(props.settings);
  const [words, setWords] = useState(settings.blockedWords.join("\n"));
  const [mentions, setMentions] = useState(String(settings.maxMentions));
  const [rank, setRank] = useState<MemberRole>(settings.require2faRank);
  const action = useAction();
  const id = useId();
  const list = words
    .split("\n")
    .map((w) => w.trim())
    .filter(Boolean);
  const badWords = wordsError(list);
  const max = Number(mentions);
  const mentionsOk = /^\d+$/.test(mentions.trim()) && max <= MAX_MENTIONS;
  const wordsChanged = list.join("\n") !== settings.blockedWords.join("\n");
  const req = {
    blockedWords: wordsChanged ? list : [],
    setBlockedWords: wordsChanged,
    maxMentions: mentionsOk && max !== settings.maxMentions ? max : undefined,
    require2faRank: rank !== settings.require2faRank ? rank : undefined,
  };
  const changed = wordsChanged || req.maxMentions !== undefined || req.require2faRank !== undefined;
  const save = async (e: Event) => {
    e.preventDefault();
    if (badWords || !mentionsOk) return;
    const res = await action.run(() => props.api.server.updateModerationSettings(req), "Saved.", "The filters were not saved");
    if (res?.settings) {
      // As the server keeps them: words trimmed, repeats dropped.
      setSettings(res.settings);
      setWords(res.settings.blockedWords.join("\n"));
    }
  };
  return (
    <form class="form filters" onSubmit={save} aria-label="Filters">
      <p class="muted small">
        The filters apply to members below moderator: a message or edit that breaks one is refused (the sender is told which rule, and keeps the text),
        and the audit log records it.
      </p>
      {!admin && <p class="small">Admins and the owner change these.</p>}
      <fieldset class="filters-fields" disabled={!admin}>
        <label class="field">
          <span>Blocked words</span>
          <textarea
            class="input"
            rows={6}
            value={words}
            placeholder={"One word or phrase per line, e.g.\nfree nitro\nscam*"}
            aria-describedby={id + "-words"}
            aria-invalid={badWords ? true : undefined}
            onInput={(e) => setWords(e.currentTarget.value)}
          />
          <span id={id + "-words"} class={badWords ? "limit-note limit-over" : "limit-note"}>
            {badWords ||
              `${list.length} / ${MAX_WORDS} words. Matched as whole words in any case, accents ignored; a * at the end matches any ending (scam* matches scammer).`}
          </span>
        </label>
        <label class="field">
          <span>Most mentions in one message</span>
          <input
            class="input input-number"
            type="number"
            min={0}
            max={MAX_MENTIONS}
            value={mentions}
            aria-describedby={id + "-mentions"}
            aria-invalid={mentionsOk ? undefined : true}
            onInput={(e) => setMentions(e.currentTarget.value)}
          />
          <span id={id + "-mentions"} class={mentionsOk ? "limit-note" : "limit-note limit-over"}>
            {mentionsOk ? "0 for no limit; @here and @everyone count as one each." : `A number from 0 (no limit) to ${MAX_MENTIONS.toLocaleString("en-US")}.`}
          </span>
        </label>
        <label class="field">
          <span>Require two-step sign-in for</span>
          <select class="input" value={rank} onChange={(e) => setRank(Number(e.currentTarget.value))}>
            {TWO_STEP.map(([r, label]) => (
              <option key={r} value={r}>
                {label}
              </option>
            ))}
          </select>
          <span class="limit-note">From their next sign-in they need an authenticator app or a passkey as well as their password.</span>
        </label>
      </fieldset>
      <Outcome action={action} />
      {admin && (
        <div class="dialog-actions">
          <button type="submit" class="button button-primary" disabled={action.busy || !changed || !!badWords || !mentionsOk}>
            Save filters
          </button>
        </div>
      )}
    </form>
  );
}
