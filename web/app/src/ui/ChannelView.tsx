// A channel on screen: its header, the message list, who is typing, and the composer. Files
// dropped anywhere on it go to the composer. The channel is marked read while its newest
// message is in sight and the page is visible.

import { useEffect, useRef, useState } from "preact/hooks";
import { ChannelKind, type Channel } from "../gen/svc/v1/types_pb";
import type { Api } from "../lib/api";
import { renderMarkdown } from "../lib/markdown";
import type { Commands } from "../state/commands";
import { channelTitle, markdownContext, othersUnread, typists } from "../state/selectors";
import { useStore, type Store } from "../state/store";
import { Avatar, MenuButton, PresenceDot } from "./common";
import { ChannelHeaderImage, ChannelSettingsButton } from "./admin/ChannelHead";
import type { ChannelSettingsCommands } from "./admin/ChannelSettings";
import { Composer, type ComposerCommands, type ComposerHandle } from "./Composer";
import type { MessageActions, MessageCommands } from "./MessageItem";
import { MessageList } from "./MessageList";
import { DMBlockGate } from "./moderation/DMBlockGate";
import { PinsButton } from "./pins/Pins";

/** The commands a channel calls: its messages', its composer's, its settings'. */
export type ChannelCommands = MessageCommands & ComposerCommands & ChannelSettingsCommands & Pick<Commands, "markRead" | "toggleBlock" | "loadPins">;

export function ChannelView(props: {
  store: Store;
  act: ChannelCommands;
  api: Api;
  channel: Channel;
  jumpTo: string;
  actions: MessageActions;
  onMenu: () => void;
  /** The channel's pins beside it (ui/pins): shown, and the header's button. */
  pins?: { open: boolean; toggle: () => void };
}) {
  const { store, act, api, channel } = props;
  const state = useStore(store, "channels", "members");
  const view = store.view(channel.id, "", true);
  const composer = useRef<ComposerHandle | null>(null);
  const [dragging, setDragging] = useState(false);
  const title = channelTitle(state, channel);
  const dm = channel.kind === ChannelKind.DM;

  useEffect(() => {
    if (props.jumpTo && !view.has(props.jumpTo)) void view.jump(props.jumpTo);
    else if (props.jumpTo) view.highlight(props.jumpTo);
    else if (!view.loaded && !view.loading) void view.loadLatest();
  }, [props.jumpTo, view]);

  const markRead = () => {
    if (document.visibilityState === "visible") act.markRead(channel.id);
  };
  useEffect(() => {
    const on = () => {
      if (document.visibilityState === "visible" && view.loaded && !view.hasAfter) markRead();
    };
    document.addEventListener("visibilitychange", on);
    window.addEventListener("focus", on);
    return () => {
      document.removeEventListener("visibilitychange", on);
      window.removeEventListener("focus", on);
    };
  }, [channel.id]);

  const others = channel.memberIds.filter((id) => id !== state.me?.id);
  const intro = (
    <div class="channel-intro">
      {dm ? (
        <>
          <div class="intro-avatars">
            {others.slice(0, 4).map((id) => (
              <Avatar key={id} base={store.base} member={state.members.get(id)} size={48} />
            ))}
          </div>
          <h3>{title}</h3>
          <p class="muted">This is the beginning of your conversation.</p>
        </>
      ) : (
        <>
          <h3>Welcome to #{title}</h3>
          <p class="muted">This is the start of the channel.</p>
        </>
      )}
    </div>
  );

  return (
    <section
      class={dragging ? "channel-view dragging" : "channel-view"}
      aria-label={dm ? `Conversation with ${title}` : `Channel ${title}`}
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes("Files")) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
      onDrop={(e) => {
        const files = [...(e.dataTransfer?.files ?? [])];
        setDragging(false);
        if (files.length > 0) {
          e.preventDefault();
          composer.current?.addFiles(files);
        }
      }}
    >
      <ChannelHeaderImage base={store.base} channel={channel} />
      <header class="channel-head">
        <MenuButton unread={othersUnread(state, channel.id)} onMenu={props.onMenu} />
        <h2 class="channel-title">
          {dm ? (
            <>
              {others.length === 1 && <PresenceDot presence={state.members.get(others[0])?.presence} />}{" "}
              <span class="channel-name" title={title}>
                {title}
              </span>
            </>
          ) : (
            <>
              <span aria-hidden="true" class="hash">
                {channel.kind === ChannelKind.PRIVATE ? "🔒" : "#"}
              </span>
              <span class="channel-name" title={title}>
                {title}
              </span>
            </>
          )}
        </h2>
        {channel.topic && <p class="channel-topic">{renderMarkdown(channel.topic, markdownContext(state, props.actions.onMember))}</p>}
        {props.pins && <PinsButton store={store} act={act} channelId={channel.id} open={props.pins.open} onToggle={props.pins.toggle} />}
        {!dm && <ChannelSettingsButton store={store} act={act} api={api} channel={channel} />}
      </header>
      <MessageList
        store={store}
        act={act}
        api={api}
        view={view}
        label={dm ? `Messages with ${title}` : `Messages in #${title}`}
        actions={props.actions}
        inThread={false}
        intro={intro}
        onAtBottom={markRead}
        onEscape={() => composer.current?.focus()}
      />
      <Typing store={store} channelId={channel.id} thread="" />
      <DMBlockGate state={state} act={act} memberIds={dm ? channel.memberIds : []}>
        <Composer
          store={store}
          act={act}
          api={api}
          channelId={channel.id}
          threadRootId=""
          placeholder={dm ? `Message ${title}` : `Message #${title}`}
          handle={composer}
          onUpFromEmpty={() => focusLast(".channel-view")}
        />
      </DMBlockGate>
      {dragging && (
        <div class="drop-hint" aria-hidden="true">
          Drop files to attach them
        </div>
      )}
    </section>
  );
}

export function Typing(props: { store: Store; channelId: string; thread: string }) {
  const names = typists(useStore(props.store, "typing"), props.channelId, props.thread);
  let text = "";
  if (names.length === 1) text = `${names[0]} is typing…`;
  else if (names.length === 2) text = `${names[0]} and ${names[1]} are typing…`;
  else if (names.length > 2) text = "Several people are typing…";
  return (
    <div class="typing" aria-live="polite">
      {text}
    </div>
  );
}

/** Focuses the newest message of a list (scope is the list's section). */
export function focusLast(scope: string): void {
  const list = document.querySelectorAll<HTMLElement>(`${scope} .message-list > article.msg`);
  const el = list[list.length - 1];
  if (el) {
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "nearest" });
  }
}
