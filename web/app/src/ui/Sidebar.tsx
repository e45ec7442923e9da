// The sidebar: the community's name, its channels by category (voice channels with who is in
// them), DMs and group DMs with their unread and mention badges, the person's call, and their
// own card at the bottom.

import { ChannelKind, ChannelMode, MemberRole, type Channel } from "../gen/svc/v1/types_pb";
import { channelHash, navigate } from "../lib/router";
import { CommunityLink } from "./admin/Community";
import { useStore, type State, type Store } from "../state/store";
import { Avatar, PresenceDot } from "./common";
import { SearchButton, ToolLinks, type ToolName } from "./tools/Tools";
import "./threadinbox.css";
import { channelTitle, mutedUntil, quietOf, readState, sortedChannels, sortedDMs } from "../state/selectors";
import { VoiceBar, VoiceChannelItem } from "./voice/VoiceSide";
import type { VoiceActs } from "./voice/parts";

export type SidebarProps = {
  store: Store;
  act: VoiceActs;
  current: string;
  onBrowse: () => void;
  onNewDM: () => void;
  onProfile: () => void;
  onNavigate: () => void;
  onTool: (t: ToolName) => void;
};

export function Sidebar(props: SidebarProps) {
  const { store } = props;
  const state = useStore(store, "channels", "members", "me", "info", "status", "prefs");
  const channels = sortedChannels(state);
  const groups = new Map<string, Channel[]>();
  for (const c of channels) {
    const list = groups.get(c.category) ?? [];
    list.push(c);
    groups.set(c.category, list);
  }
  const dms = sortedDMs(state);
  const me = state.me;
  const info = state.info;
  const owner = me?.role === MemberRole.OWNER;
  return (
    <nav class="sidebar-inner" aria-label="Channels and direct messages">
      <header class="server-head">
        <h1 class="server-name">{info?.name || "Hearth"}</h1>
        <CommunityLink store={store} onNavigate={props.onNavigate} />
      </header>
      {info?.needsSetup && owner && (
        <div class="setup-note">
          <p>Your community is new. Others can use it once you finish the setup.</p>
          <button type="button" class="button" onClick={() => (navigate("#/setup"), props.onNavigate())}>
            Continue the setup
          </button>
        </div>
      )}
      <SearchButton onTool={props.onTool} />
      <a href="#/threads" class={`side-link threads-link${props.current === "threads" ? " current" : ""}`} aria-current={props.current === "threads" ? "page" : undefined} onClick={props.onNavigate}>
        <span class="side-icon" aria-hidden="true">
          🧵
        </span>
        <span class="side-name">Threads</span>
      </a>
      <div class="sidebar-scroll">
        {[...groups.entries()].map(([category, list]) => (
          <section class="side-section" key={category}>
            <h2 class="side-title">{category || "Channels"}</h2>
            <ul class="side-list">
              {list.map((c) =>
                c.kind === ChannelKind.VOICE ? (
                  <VoiceChannelItem key={c.id} store={store} channel={c} current={props.current} onNavigate={props.onNavigate} />
                ) : (
                  <ChannelLink key={c.id} state={state} channel={c} current={props.current} onNavigate={props.onNavigate} />
                ),
              )}
            </ul>
          </section>
        ))}
        {state.mode === ChannelMode.OPT_IN && (
          <button type="button" class="side-action" onClick={props.onBrowse}>
            Browse channels
          </button>
        )}
        <section class="side-section">
          <div class="side-title-row">
            <h2 class="side-title">Direct messages</h2>
            <button type="button" class="icon-button" aria-label="New direct message" title="New direct message" onClick={props.onNewDM}>
              +
            </button>
          </div>
          <ul class="side-list">
            {dms.map((c) => (
              <ChannelLink key={c.id} state={state} channel={c} current={props.current} onNavigate={props.onNavigate} />
            ))}
          </ul>
          {dms.length === 0 && <p class="side-empty">No conversations yet.</p>}
        </section>
        <ToolLinks store={store} onTool={props.onTool} />
      </div>
      <VoiceBar store={store} act={props.act} where="side" current={props.current} onNavigate={props.onNavigate} />
      {me && (
        <footer class="me-card">
          <button type="button" class="me-button" onClick={props.onProfile} aria-label={`Your profile: ${me.displayName || me.username}`}>
            <Avatar base={store.base} member={me} size={32} />
            <span class="me-names">
              <span class="me-name">{me.displayName || me.username}</span>
              <span class="me-status">{me.statusEmoji} {me.statusText || "@" + me.username}</span>
            </span>
            <PresenceDot presence={state.members.get(me.id)?.presence} unknown={state.lost} />
          </button>
        </footer>
      )}
    </nav>
  );
}

function ChannelLink(props: { state: State; channel: Channel; current: string; onNavigate: () => void }) {
  const { state, channel: c } = props;
  const rs = readState(state, c.id);
  const dm = c.kind === ChannelKind.DM;
  const title = channelTitle(state, c);
  const unread = rs.unreadCount;
  const mentionCount = rs.mentionCount;
  const parts = [dm ? title : "#" + title];
  if (unread > 0) parts.push(`${unread} unread`);
  if (mentionCount > 0) parts.push(`${mentionCount} ${mentionCount === 1 ? "mention" : "mentions"}`);
  const others = c.memberIds.filter((id) => id !== state.me?.id);
  const quiet = dm ? quietOf(state, others) : undefined;
  if (quiet) parts.push(quiet.label);
  const muted = mutedUntil(state, c.id, Date.now()) !== 0;
  if (muted) parts.push("notifications muted");
  const current = props.current === c.id;
  return (
    <li>
      <a
        href={channelHash(c.id)}
        class={`side-link${unread > 0 || mentionCount > 0 ? " unread" : ""}${current ? " current" : ""}${muted ? " side-muted" : ""}`}
        aria-current={current ? "page" : undefined}
        aria-label={parts.join(", ")}
        data-channel={c.id}
        onClick={props.onNavigate}
      >
        {dm ? (
          others.length === 1 ? (
            <span class="side-icon">
              <PresenceDot presence={state.members.get(others[0])?.presence} unknown={state.lost} />
            </span>
          ) : (
            <span class="side-icon group-icon" aria-hidden="true">
              {others.length}
            </span>
          )
        ) : (
          <span class="side-icon hash" aria-hidden="true">
            {c.kind === ChannelKind.PRIVATE ? "🔒" : "#"}
          </span>
        )}
        <span class="side-name">{title}</span>
        {quiet && (
          <span class="side-quiet" aria-hidden="true" title={quiet.title}>
            {quiet.icon}
          </span>
        )}
        {muted && (
          <span class="side-mute" aria-hidden="true" title="Notifications muted">
            🔕
          </span>
        )}
        {mentionCount > 0 ? (
          <span class="badge badge-mention" aria-hidden="true">
            {mentionCount}
          </span>
        ) : unread > 0 && !muted ? (
          <span class="badge" aria-hidden="true">
            {unread}
          </span>
        ) : null}
      </a>
    </li>
  );
}
