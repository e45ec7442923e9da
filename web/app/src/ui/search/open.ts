// Opening a message where it was written, from a search result, a report or a link: a top-level
// message by the channel's jump (ListMessages around_id, #/c/{channel}/m/{message}); a thread
// reply by opening its thread (#/c/{channel}/t/{root}/m/{reply}), whose window loads around the
// reply, highlighted there.

import { messageHash, navigate } from "../../lib/router";
import type { Store } from "../../state/store";

export function openMessage(store: Pick<Store, "view">, m: { id: string; channelId: string; threadRootId: string }): void {
  const view = store.view(m.channelId, m.threadRootId, false);
  // Jumping to the message already on screen scrolls to it again.
  if (location.hash === messageHash(m) && view?.has(m.id)) {
    view.highlight(m.id);
    return;
  }
  navigate(messageHash(m));
}
