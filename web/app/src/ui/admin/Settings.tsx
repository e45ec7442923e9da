// The community's settings (admins and the owner): its card (name, description with a preview
// of its Markdown, icon, banner, accent colour), who may come in (invite only, join questions),
// how long messages are kept, and how channels work (the channel mode). Pictures are saved as
// soon as they are uploaded; the rest with one Save, which sends only what changed.

import { useId, useState } from "preact/hooks";
import { ChannelMode } from "../../gen/svc/v1/types_pb";
import { limitError, LIMITS as TEXT_LIMITS } from "../../lib/chars";
import { renderMarkdown } from "../../lib/markdown";
import type { Api } from "../../lib/api";
import type { Commands } from "../../state/commands";
import { markdownContext } from "../../state/selectors";
import { useStore, type State, type Store } from "../../state/store";
import { limited } from "../limits";
import { ColorField } from "./Color";
import { ImageField, Outcome, useAction } from "./parts";

/** The API's limits on numbers (server.proto, UpdateServerSettings); those on text are in
 * lib/chars. */
export const LIMITS = { questions: 10, retention: 36500 };

export type SettingsCommands = Pick<Commands, "saveSettings">;

export function SettingsScreen(props: { store: Store; act: SettingsCommands; api: Api }) {
  const { store, act, api } = props;
  const state = useStore(store, "info", "channels");
  const info = state.info;
  if (!info) return <p class="muted">Loading the settings…</p>;
  return (
    <div class="admin-page">
      <section class="admin-section" aria-labelledby="pictures-title">
        <h2 id="pictures-title">Pictures</h2>
        <div class="image-fields">
          <ImageField
            base={store.base}
            api={api}
            label="Icon"
            shape="icon"
            url={info.iconUrl}
            onUploaded={(a) => act.saveSettings({ iconId: a.id })}
            onRemove={() => act.saveSettings({ iconId: "" })}
          />
          <ImageField
            base={store.base}
            api={api}
            label="Banner"
            shape="banner"
            url={info.banner?.url ?? ""}
            onUploaded={(a) => act.saveSettings({ bannerId: a.id })}
            onRemove={() => act.saveSettings({ bannerId: "" })}
          />
        </div>
      </section>
      <SettingsForm state={state} act={act} />
    </div>
  );
}

function SettingsForm(props: { state: State; act: SettingsCommands }) {
  const { state, act } = props;
  const info = state.info!;
  const [name, setName] = useState(info.name);
  const [description, setDescription] = useState(info.description);
  const [preview, setPreview] = useState(false);
  const [accent, setAccent] = useState(info.accentColor);
  const [inviteOnly, setInviteOnly] = useState(info.inviteOnly);
  const [keepForever, setKeepForever] = useState(info.retentionDays === 0);
  const [days, setDays] = useState(String(info.retentionDays || 365));
  const [mode, setMode] = useState(state.mode);
  const [questions, setQuestions] = useState<string[]>(info.joinQuestions);
  const action = useAction();

  const retention = keepForever ? 0 : Number(days);
  const retentionValid = keepForever || (/^\d+$/.test(days.trim()) && retention >= 1 && retention <= LIMITS.retention);
  const cleanQuestions = questions.map((q) => q.trim()).filter(Boolean);
  const questionsChanged = cleanQuestions.length !== info.joinQuestions.length || cleanQuestions.some((q, i) => q !== info.joinQuestions[i]);
  const req = {
    name: name.trim() !== info.name ? name.trim() : undefined,
    description: description !== info.description ? description : undefined,
    accentColor: accent !== info.accentColor ? accent : undefined,
    inviteOnly: inviteOnly !== info.inviteOnly ? inviteOnly : undefined,
    retentionDays: retention !== info.retentionDays ? retention : undefined,
    channelMode: mode !== state.mode ? mode : undefined,
    joinQuestions: questionsChanged ? cleanQuestions : [],
    setJoinQuestions: questionsChanged,
  };
  const changed = Object.entries(req).some(([k, v]) => k !== "joinQuestions" && v !== undefined && v !== false);
  const id = useId();
  const nameCheck = limited(id + "-name", name.trim(), TEXT_LIMITS.communityName);
  const descriptionCheck = limited(id + "-description", description, TEXT_LIMITS.description, {
    counter: true,
    hint: "shown on the sign-in and join pages",
  });
  const over = nameCheck.over || descriptionCheck.over || questionsOver(questions);
  const save = async (e: Event) => {
    e.preventDefault();
    if (over) return;
    await action.run(() => act.saveSettings(req), "Saved.", "The settings were not saved");
  };

  return (
    <form class="form" onSubmit={save} aria-label="Community settings">
      <section class="admin-section" aria-labelledby="card-title">
        <h2 id="card-title">The community</h2>
        <label class="field">
          <span>Name</span>
          <input class="input" value={name} required {...nameCheck.field} onInput={(e) => setName(e.currentTarget.value)} />
          {nameCheck.note}
        </label>
        <div class="field">
          <div class="field-head">
            <label for="community-description">Description</label>
            <div class="segmented" role="group" aria-label="Description view">
              <button type="button" class={preview ? "seg" : "seg seg-on"} aria-pressed={!preview} onClick={() => setPreview(false)}>
                Write
              </button>
              <button type="button" class={preview ? "seg seg-on" : "seg"} aria-pressed={preview} onClick={() => setPreview(true)}>
                Preview
              </button>
            </div>
          </div>
          {preview ? (
            <div class="markdown-preview" aria-label="Description preview">
              {description.trim() ? renderMarkdown(description, markdownContext(state)) : <span class="muted">Nothing to show yet.</span>}
            </div>
          ) : (
            <textarea
              id="community-description"
              class="input"
              rows={5}
              value={description}
              {...descriptionCheck.field}
              placeholder="What this community is about. Markdown: **bold**, *italic*, `code`, links."
              onInput={(e) => setDescription(e.currentTarget.value)}
            />
          )}
          {descriptionCheck.note}
        </div>
        <ColorField label="Accent colour" value={accent} onChange={setAccent} />
      </section>

      <section class="admin-section" aria-labelledby="joining-title">
        <h2 id="joining-title">Joining</h2>
        <label class="check">
          <input type="checkbox" checked={inviteOnly} onChange={(e) => setInviteOnly(e.currentTarget.checked)} />
          <span>
            <strong>Invite only</strong> <span class="muted">people need an invite code to join</span>
          </span>
        </label>
        <QuestionsField questions={questions} onChange={setQuestions} />
      </section>

      <section class="admin-section" aria-labelledby="channels-mode-title">
        <h2 id="channels-mode-title">Channels</h2>
        <ModeField mode={mode} onChange={setMode} />
      </section>

      <section class="admin-section" aria-labelledby="retention-title">
        <h2 id="retention-title">Message history</h2>
        <fieldset class="choice-set">
          <legend class="visually-hidden">Keep messages</legend>
          <label class="check">
            <input type="radio" name="retention" checked={keepForever} onChange={() => setKeepForever(true)} />
            Keep messages forever
          </label>
          <label class="check">
            <input type="radio" name="retention" checked={!keepForever} onChange={() => setKeepForever(false)} />
            <span>Delete messages older than</span>
            <input
              class="input input-number"
              type="number"
              min={1}
              max={LIMITS.retention}
              value={days}
              disabled={keepForever}
              aria-label="Days to keep messages"
              onInput={(e) => setDays(e.currentTarget.value)}
            />
            <span>days</span>
          </label>
        </fieldset>
        {!retentionValid && <p class="error-row">Keep messages for 1 to {LIMITS.retention} days.</p>}
        <p class="muted small">Older messages go with their threads, reactions and files; nobody can get them back.</p>
      </section>

      <Outcome action={action} />
      <div class="dialog-actions sticky-actions">
        <button type="submit" class="button button-primary" disabled={action.busy || !changed || !name.trim() || !retentionValid || over}>
          Save settings
        </button>
      </div>
    </form>
  );
}

/** The channel mode, with what each means. */
export function ModeField(props: { mode: ChannelMode; onChange: (m: ChannelMode) => void }) {
  return (
    <fieldset class="choice-set">
      <legend>How channels work</legend>
      <label class="check check-top">
        <input type="radio" name="channel-mode" checked={props.mode !== ChannelMode.OPT_IN} onChange={() => props.onChange(ChannelMode.ROLES)} />
        <span>
          <strong>Everyone is in every channel</strong> <span class="muted">they may see (channels can be limited to roles)</span>
        </span>
      </label>
      <label class="check check-top">
        <input type="radio" name="channel-mode" checked={props.mode === ChannelMode.OPT_IN} onChange={() => props.onChange(ChannelMode.OPT_IN)} />
        <span>
          <strong>People choose their channels</strong> <span class="muted">they browse and join them; newcomers start in the default channels</span>
        </span>
      </label>
    </fieldset>
  );
}

/** Whether a join question is too long to send (each is sent trimmed). */
export function questionsOver(questions: string[]): boolean {
  return questions.some((q) => limitError(q.trim(), TEXT_LIMITS.joinQuestion) !== "");
}

/** The questions asked of people who join: up to 10, each up to 200 characters. */
export function QuestionsField(props: { questions: string[]; onChange: (q: string[]) => void }) {
  const { questions } = props;
  const id = useId();
  const set = (i: number, v: string) => props.onChange(questions.map((q, j) => (j === i ? v : q)));
  return (
    <fieldset class="choice-set questions">
      <legend>Join questions</legend>
      <p class="muted small">Asked of everyone who joins; their answers are kept with their membership. Up to {LIMITS.questions}.</p>
      {questions.map((q, i) => {
        const check = limited(`${id}-${i}`, q.trim(), TEXT_LIMITS.joinQuestion);
        return (
          <div class="question-item" key={i}>
            <div class="question-row">
              <input
                class="input"
                value={q}
                aria-label={`Question ${i + 1}`}
                placeholder="e.g. Who told you about us?"
                {...check.field}
                onInput={(e) => set(i, e.currentTarget.value)}
              />
              <button type="button" class="icon-button" aria-label={`Remove question ${i + 1}`} title="Remove" onClick={() => props.onChange(questions.filter((_, j) => j !== i))}>
                ✕
              </button>
            </div>
            {check.note}
          </div>
        );
      })}
      {questions.length < LIMITS.questions && (
        <div>
          <button type="button" class="button" onClick={() => props.onChange([...questions, ""])}>
            Add a question
          </button>
        </div>
      )}
    </fieldset>
  );
}
