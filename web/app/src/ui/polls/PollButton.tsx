// The composer's "Poll" entry: the button, and the form (PollDialog.tsx, a chunk loaded when it
// is first opened).

import { useState } from "preact/hooks";
import type { Commands } from "../../state/commands";
import { lazyView } from "../lazy";

const PollDialog = lazyView("the poll form", () => import("./PollDialog"), (m) => m.PollDialog, "dialog");

/** The Poll entry of a channel's composer. */
export function PollButton(props: { act: Pick<Commands, "sendPoll">; channelId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class="icon-button" aria-label="Create a poll" title="Poll" onClick={() => setOpen(true)}>
        📊
      </button>
      {open && <PollDialog act={props.act} channelId={props.channelId} onClose={() => setOpen(false)} />}
    </>
  );
}
