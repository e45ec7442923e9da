// A channel on screen: its header, the message list, who is typing, and the composer. Files
// dropped anywhere on it go to the composer. The channel is marked read while its newest
// message is in sight and the page is visible.

import { useEffect, useRef, useState } from "preact/hooks";
import { ChannelKind, type Channel } from "../gen/svc/v1/types_pb";
import { useTopics } from "../lib/emitter";
import { renderMarkdown } from "../lib/markdown";
import type { Session } from "../state/session";
import { Avatar, PresenceDot } from "./common";
import { ChannelHeaderImage, ChannelSettingsButton } from "./admin/ChannelSettings";
import { Composer, type ComposerHandle } from "./Composer";
import { renderContext, type MessageActions } from "./MessageItem";
import { MessageList } from "./MessageList";
import { DMBlockGate } from "./moderation/MemberModeration";
import { channelTitle, readState, typists } from "../state/selectors";

export function ChannelView(props: {
  session: Session;
  channel: Channel;
  jumpTo: string;
  actions: MessageActions;
  onMenu: () => void;
}) {
  const { session, channel } = props;
  useTopics(session.em, "channels", "members");
  const view = session.view(channel.id, "", true);
  const composer = useRef<ComposerHandle | null>(null);
  const [dragging, setDragging] = useState(false);
  const title = channelTitle(session.state, channel);
  const dm = channel.kind === ChannelKind.DM;

  useEffect(() => {
    if (props.jumpTo && !view.has(props.jumpTo)) void view.jump(props.jumpTo);
    else if (props.jumpTo) view.highlight(props.jumpTo);
    else if (!view.loaded && !view.loading) void view.loadLatest();
  }, [props.jumpTo, view]);

  const markRead = () => {
    if (document.visibilityState === "visible") session.act.markRead(channel.id);
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

  const others = channel.memberIds.filter((id) => id !== session.state.me?.id);
  const intro = (
    <div class="channel-intro">
      {dm ? (
        <>
          <div class="intro-avatars">
            {others.slice(0, 4).map((id) => (
              <Avatar key={id} session={session} id={id} size={48} />
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
      <ChannelHeaderImage session={session} channel={channel} />
      <header class="channel-head">
        <MenuButton session={session} current={channel.id} onMenu={props.onMenu} />
        <h2 class="channel-title">
          {dm ? (
            <>
              {others.length === 1 && <PresenceDot presence={session.state.members.get(others[0])?.presence} />}{" "}
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
        {channel.topic && <p class="channel-topic">{renderMarkdown(channel.topic, renderContext(session, props.actions.onMember))}</p>}
        {!dm && <ChannelSettingsButton session={session} channel={channel} />}
      </header>
      <MessageList
        session={session}
        view={view}
        label={dm ? `Messages with ${title}` : `Messages in #${title}`}
        actions={props.actions}
        inThread={false}
        intro={intro}
        onAtBottom={markRead}
        onEscape={() => composer.current?.focus()}
      />
      <Typing session={session} channelId={channel.id} thread="" />
      <DMBlockGate session={session} memberIds={dm ? channel.memberIds : []}>
        <Composer
          session={session}
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

export function Typing(props: { session: Session; channelId: string; thread: string }) {
  useTopics(props.session.em, "typing");
  const names = typists(props.session.state, props.channelId, props.thread);
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

/** The phone's menu button, with a dot while another channel has something unread. */
export function MenuButton(props: { session: Session; current: string; onMenu: () => void }) {
  const { session } = props;
  let unread = 0;
  for (const c of session.state.channels.values()) {
    if (c.id === props.current) continue;
    const rs = readState(session.state, c.id);
    unread += rs.unreadCount + rs.mentionCount > 0 ? 1 : 0;
  }
  return (
    <button
      type="button"
      class="icon-button menu-button"
      aria-label={unread > 0 ? `Open the channel list (${unread} with unread messages)` : "Open the channel list"}
      onClick={props.onMenu}
    >
      ☰{unread > 0 && <span class="menu-dot" aria-hidden="true" />}
    </button>
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
