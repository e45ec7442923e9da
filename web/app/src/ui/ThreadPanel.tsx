// A thread beside the channel (over it on a phone): the root message, its replies in a
// windowed list of their own, and a composer that replies in the thread.

import { useEffect, useRef, useState } from "preact/hooks";
import { errorText, type Api } from "../lib/api";
import { useStore, type Store } from "../state/store";
import { focusLast, Typing } from "./ChannelView";
import { Composer, type ComposerCommands } from "./Composer";
import { MessageItem, type MessageActions, type MessageCommands } from "./MessageItem";
import { MessageList } from "./MessageList";
import { ErrorRow, focusOpened, usePanelEscape } from "./common";

export function ThreadPanel(props: {
  store: Store;
  act: MessageCommands & ComposerCommands;
  api: Api;
  channelId: string;
  rootId: string;
  actions: MessageActions;
  onClose: () => void;
  inert?: boolean;
}) {
  const { store, act, api, channelId, rootId } = props;
  const view = store.view(channelId, rootId, true);
  const state = useStore(store, view.topic);
  const [error, setError] = useState("");

  useEffect(() => {
    setError("");
    view
      .loadRoot()
      .then((found) => found || setError("This thread is gone."))
      .catch((e) => setError(errorText(e)));
    if (!view.loaded && !view.loading) void view.loadLatest();
  }, [view]);

  // The keyboard follows the thread: opened, it has the focus (it comes after every message in
  // the tab order, and on a phone it covers the channel): its reply box, except on a touch
  // screen: there the panel itself, as a focused box would raise the on-screen keyboard
  // over the thread. Closed, the focus goes back to the thread's root in the channel, unless
  // the person has put it elsewhere meanwhile (another channel picked in the sidebar).
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    focusOpened(panel.current?.querySelector<HTMLElement>(".composer .composer-input"), panel.current);
    return () => {
      const active = document.activeElement;
      if (active && active !== document.body && !panel.current?.contains(active)) return;
      // After the panel has gone, so that its unmounting does not drop the focus again.
      setTimeout(() => {
        // Taken since (another thread opened in its place): left there.
        if (document.activeElement && document.activeElement !== document.body) return;
        const back = document.getElementById("msg-" + rootId);
        if (!back || !document.querySelector(".channel-view")?.contains(back)) {
          document.querySelector<HTMLElement>(".channel-view .composer .composer-input")?.focus();
          return;
        }
        back.focus({ preventScroll: true });
        back.querySelector<HTMLElement>('.thread-link, [aria-label="Reply in thread"]')?.focus({ preventScroll: true });
      });
    };
  }, []);

  usePanelEscape(store, props.onClose);

  const root = view.root;
  return (
    <aside class="thread-panel" aria-label="Thread" tabIndex={-1} ref={panel} inert={props.inert}>
      <header class="thread-head">
        <h2>Thread</h2>
        <button type="button" class="icon-button" aria-label="Close thread" onClick={props.onClose}>
          ✕
        </button>
      </header>
      <ErrorRow error={error} />
      <MessageList
        store={store}
        act={act}
        api={api}
        view={view}
        label="Replies"
        onEscape={() => document.querySelector<HTMLElement>(".thread-panel .composer .composer-input")?.focus()}
        actions={props.actions}
        inThread={true}
        intro={
          root && (
            <div class="thread-root">
              <MessageItem shared={{ state, act, base: store.base, api, store }} message={root} grouped={false} target={false} inThread={true} actions={props.actions} />
              <div class="thread-count">
                {root.replyCount} {root.replyCount === 1 ? "reply" : "replies"}
              </div>
            </div>
          )
        }
      />
      <Typing store={store} channelId={channelId} thread={rootId} />
      <Composer store={store} act={act} api={api} channelId={channelId} threadRootId={rootId} placeholder="Reply in the thread" onUpFromEmpty={() => focusLast(".thread-panel")} />
    </aside>
  );
}
