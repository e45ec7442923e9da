// The setup wizard, for the owner of a new community (needs_setup): its name, description and
// icon; who may join (invite only) and how channels work (the channel mode); the first
// channels. Finishing saves the settings, creates the channels (the first one the default for
// newcomers when people choose their channels) and completes the setup; "Skip setup" completes
// it with nothing else changed. Until then only the owner can use the community.

import { useId, useState } from "preact/hooks";
import { ChannelKind, ChannelMode } from "../../gen/svc/v1/types_pb";
import { errorText } from "../../lib/api";
import { LIMITS } from "../../lib/chars";
import { navigate, channelHash } from "../../lib/router";
import type { Api } from "../../lib/api";
import type { Commands } from "../../state/commands";
import type { Store } from "../../state/store";
import { ImageField } from "./parts";
import { ModeField } from "./Settings";
import { ErrorRow } from "../common";
import { limited } from "../limits";

const STEPS = ["About", "Joining", "Channels"];

export type SetupCommands = Pick<Commands, "saveSettings" | "createChannel" | "setChannelAccess">;

export function SetupWizard(props: { store: Store; act: SetupCommands; api: Api }) {
  const { store, act } = props;
  // The state as the wizard opens; its page re-renders it for "me" and "info".
  const state = store.state;
  const info = state.info;
  const [step, setStep] = useState(0);
  const [name, setName] = useState(info?.name ?? "");
  const [description, setDescription] = useState(info?.description ?? "");
  const [inviteOnly, setInviteOnly] = useState(info?.inviteOnly ?? false);
  const [mode, setMode] = useState(state.mode);
  const [channels, setChannels] = useState<string[]>(() => (state.channels.size > 0 ? [] : ["general", "random"]));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");

  const finish = async (skip: boolean) => {
    setBusy(true);
    setError("");
    try {
      let first = "";
      if (!skip) {
        await act.saveSettings({ name: name.trim(), description, inviteOnly });
        const existing = new Set([...state.channels.values()].map((c) => c.name));
        for (const raw of channels.map((c) => c.trim()).filter(Boolean)) {
          if (existing.has(raw)) continue;
          const ch = await act.createChannel({ name: raw, kind: ChannelKind.TEXT });
          if (!ch) continue;
          existing.add(ch.name);
          first ||= ch.id;
        }
        // Channels first, then the mode: switching to OPT_IN keeps everyone in the channels.
        if (mode !== state.mode) {
          await act.saveSettings({ channelMode: mode });
          if (mode === ChannelMode.OPT_IN && first) await act.setChannelAccess({ channelId: first, isDefault: true });
        }
      }
      await act.saveSettings({ setupComplete: true });
      navigate(first ? channelHash(first) : "#/", true);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const next = (e: Event) => {
    e.preventDefault();
    if (over) return;
    if (step < STEPS.length - 1) setStep(step + 1);
    else void finish(false);
  };
  const nameOk = name.trim().length > 0;
  // Counted as sent: the name trimmed, the description as typed, each channel name trimmed.
  const id = useId();
  const nameCheck = limited(id + "-name", name.trim(), LIMITS.communityName);
  const descriptionCheck = limited(id + "-description", description, LIMITS.description, { counter: true });
  const channelChecks = channels.map((c, i) => limited(`${id}-channel-${i}`, c.trim(), LIMITS.channelName));
  // Every step's fields are sent at the end, so one too long anywhere stops Next and Finish.
  const over = nameCheck.over || descriptionCheck.over || channelChecks.some((c) => c.over);
  return (
    <div class="admin-page wizard">
      <p class="wizard-intro">
        Welcome! A few choices to make your community ready; you can change every one of them later in the community settings. Others can use
        the community once the setup is done.
      </p>
      <ol class="wizard-steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li key={s} class={i === step ? "current" : i < step ? "done" : ""} aria-current={i === step ? "step" : undefined}>
            <span class="wizard-step-number" aria-hidden="true">
              {i + 1}
            </span>
            {s}
          </li>
        ))}
      </ol>
      <form class="form admin-section" onSubmit={next} aria-label={`Step ${step + 1} of ${STEPS.length}: ${STEPS[step]}`}>
        {step === 0 && (
          <>
            <h2>About your community</h2>
            <label class="field">
              <span>Community name</span>
              <input class="input" value={name} required {...nameCheck.field} onInput={(e) => setName(e.currentTarget.value)} />
              {nameCheck.note}
            </label>
            <label class="field">
              <span>Description</span>
              <textarea
                class="input"
                rows={4}
                value={description}
                placeholder="What this community is about (Markdown). Shown to people before they join."
                {...descriptionCheck.field}
                onInput={(e) => setDescription(e.currentTarget.value)}
              />
              {descriptionCheck.note}
            </label>
            <ImageField
              base={store.base}
              api={props.api}
              label="Icon"
              shape="icon"
              url={info?.iconUrl ?? ""}
              onUploaded={(a) => act.saveSettings({ iconId: a.id })}
              onRemove={() => act.saveSettings({ iconId: "" })}
            />
          </>
        )}
        {step === 1 && (
          <>
            <h2>Who joins, and how channels work</h2>
            <label class="check check-top">
              <input type="checkbox" checked={inviteOnly} onChange={(e) => setInviteOnly(e.currentTarget.checked)} />
              <span>
                <strong>Invite only</strong> <span class="muted">people need an invite, which moderators make on the Invites page</span>
              </span>
            </label>
            <ModeField mode={mode} onChange={setMode} />
          </>
        )}
        {step === 2 && (
          <>
            <h2>The first channels</h2>
            <p class="muted small">Names are made lowercase with hyphens. You can add more, rename them and limit them to roles later.</p>
            {channels.map((c, i) => (
              <div class="question-item" key={i}>
                <div class="question-row">
                  <span class="hash muted" aria-hidden="true">
                    #
                  </span>
                  <input
                    class="input"
                    value={c}
                    aria-label={`Channel ${i + 1}`}
                    {...channelChecks[i].field}
                    onInput={(e) => setChannels(channels.map((x, j) => (j === i ? e.currentTarget.value : x)))}
                  />
                  <button type="button" class="icon-button" aria-label={`Remove channel ${i + 1}`} title="Remove" onClick={() => setChannels(channels.filter((_, j) => j !== i))}>
                    ✕
                  </button>
                </div>
                {channelChecks[i].note}
              </div>
            ))}
            <div>
              <button type="button" class="button" onClick={() => setChannels([...channels, ""])}>
                Add a channel
              </button>
            </div>
          </>
        )}
        <ErrorRow error={error} />
        <div class="wizard-actions">
          <button type="button" class="button" disabled={busy} onClick={() => finish(true)}>
            Skip setup
          </button>
          <span class="spacer" />
          {step > 0 && (
            <button type="button" class="button" disabled={busy} onClick={() => setStep(step - 1)}>
              Back
            </button>
          )}
          <button type="submit" class="button button-primary" disabled={busy || !nameOk || over}>
            {step < STEPS.length - 1 ? "Next" : busy ? "Finishing…" : "Finish setup"}
          </button>
        </div>
      </form>
    </div>
  );
}
