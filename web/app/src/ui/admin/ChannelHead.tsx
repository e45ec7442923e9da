// What a channel's header shows of its settings: the picture behind it, and the button that
// opens the settings (ChannelSettings.tsx, a chunk loaded when first opened).

import { useState } from "preact/hooks";
import { ChannelKind, ChannelMode, type Channel } from "../../gen/svc/v1/types_pb";
import { absUrl, type Api } from "../../lib/api";
import { isAdmin } from "../../lib/ranks";
import { useStore, type State, type Store } from "../../state/store";
import { lazyView } from "../lazy";
import type { ChannelSettingsCommands } from "./ChannelSettings";

const ChannelSettingsDialog = lazyView("the channel's settings", () => import("./ChannelSettings"), (m) => m.ChannelSettingsDialog, "dialog");

/** Whether the person has anything to do in a channel's settings. */
export function hasChannelSettings(s: State, c: Channel): boolean {
  if (c.kind === ChannelKind.DM) return false;
  return isAdmin(s) || c.kind === ChannelKind.PRIVATE || s.mode === ChannelMode.OPT_IN;
}

/** The button in a channel's header that opens its settings (when there is anything to do). */
export function ChannelSettingsButton(props: { store: Store; act: ChannelSettingsCommands; api: Api; channel: Channel }) {
  const { channel } = props;
  const state = useStore(props.store, "me");
  const [open, setOpen] = useState(false);
  if (!hasChannelSettings(state, channel)) return null;
  return (
    <>
      <button type="button" class="icon-button channel-settings-button" aria-label={`Settings of #${channel.name}`} title="Channel settings" onClick={() => setOpen(true)}>
        ⚙
      </button>
      {open && <ChannelSettingsDialog store={props.store} act={props.act} api={props.api} channelId={channel.id} onClose={() => setOpen(false)} />}
    </>
  );
}

/** The picture behind a channel's header, if it has one. */
export function ChannelHeaderImage(props: { base: string; channel: Channel }) {
  const url = props.channel.headerImage?.url;
  if (!url) return null;
  return <img class="channel-header-image" src={absUrl(props.base, url)} alt="" />;
}
