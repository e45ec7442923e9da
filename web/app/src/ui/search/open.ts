// Opening a message where it was written, from a search result or a report: a top-level
// message by the channel's jump (ListMessages around_id, #/c/{channel}/m/{message}); a thread
// reply by opening its thread with the thread's window loaded around the reply, which is then
// highlighted there.

import { channelHash, navigate } from "../../lib/router";
import type { Store } from "../../state/store";

export function openMessage(store: Pick<Store, "view">, m: { id: string; channelId: string; threadRootId: string }): void {
  if (m.threadRootId) {
    // The thread panel loads its window only if none is loading: this jump is that window.
    void store.view(m.channelId, m.threadRootId, true).jump(m.id);
    navigate(channelHash(m.channelId, { thread: m.threadRootId }));
    return;
  }
  const view = store.view(m.channelId, "", false);
  // Jumping to the message already on screen scrolls to it again.
  if (location.hash === channelHash(m.channelId, { message: m.id }) && view?.has(m.id)) {
    view.highlight(m.id);
    return;
  }
  navigate(channelHash(m.channelId, { message: m.id }));
}
