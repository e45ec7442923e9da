// Browsing the community's channels (OPT_IN mode): every TEXT channel the person can see, with
// its member count, to join, open or leave.

import type { Channel } from "../gen/svc/v1/types_pb";
import type { Api } from "../lib/api";
import type { Commands } from "../state/commands";
import { useStore, type Store } from "../state/store";
import { Dialog, ErrorRow, useLoaded } from "./common";

export function BrowseChannels(props: {
  store: Store;
  act: Pick<Commands, "run" | "joinChannel" | "leaveChannel">;
  api: Api;
  onClose: () => void;
  onOpenChannel: (id: string) => void;
}) {
  const { act, api } = props;
  const state = useStore(props.store, "channels");
  const { list: channels, error, reload: load } = useLoaded<Channel>(() => api.chat.browseChannels({}).then((res) => res.channels));
  return (
    <Dialog title="Browse channels" onClose={props.onClose} wide>
      <ErrorRow error={error} />
      {!channels && !error && <p class="muted">Loading channels…</p>}
      {channels && (
        <ul class="browse-list">
          {channels.map((c) => {
            const joined = state.channels.has(c.id);
            return (
              <li key={c.id} class="browse-item">
                <div>
                  <p class="browse-name">
                    #{c.name} {c.category && <span class="muted small">in {c.category}</span>}
                  </p>
                  <p class="muted small">
                    {c.memberCount} {c.memberCount === 1 ? "member" : "members"}
                    {c.topic ? " · " + c.topic : ""}
                  </p>
                </div>
                {joined ? (
                  <div class="browse-actions">
                    <button type="button" class="button" onClick={() => (props.onClose(), props.onOpenChannel(c.id))}>
                      Open
                    </button>
                    <button type="button" class="button" aria-label={`Leave #${c.name}`} onClick={() => act.run("Could not leave the channel", () => act.leaveChannel(c.id)).then(load)}>
                      Leave
                    </button>
                  </div>
                ) : (
                  <button
                    type="button"
                    class="button button-primary"
                    aria-label={`Join #${c.name}`}
                    onClick={async () => {
                      if (await act.joinChannel(c.id)) {
                        props.onClose();
                        props.onOpenChannel(c.id);
                      }
                    }}
                  >
                    Join
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {channels?.length === 0 && <p class="muted">There are no channels to browse.</p>}
    </Dialog>
  );
}
