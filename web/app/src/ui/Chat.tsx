// The chat screen: the sidebar (a drawer on a phone), the channel, the thread beside it, and
// the dialogs. It follows the route (#/c/{channel}[/m/{message}|/t/{message}]; #/reports opens
// the moderators' reports queue over the channel last open), keeps the tab's
// title showing the unread count, and takes the keyboard shortcuts: Alt+Up/Down for the
// previous/next channel, Alt+Shift+Up/Down for the previous/next unread one, Escape to close,
// `?` and Ctrl+/ for the list of them all (Shortcuts.tsx).

import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { channelHash, messageHash, navigate, type Route } from "../lib/router";
import type { Api } from "../lib/api";
import { loadShown, saveShown } from "../lib/storage";
import type { Commands } from "../state/commands";
import { useStore, type Store } from "../state/store";
import { copyText, focusOpened, Notices } from "./common";
import { CommunityAccent, CommunityMain, showsCommunity } from "./admin/Community";
import { BrowseChannels } from "./Browse";
import { ChannelView } from "./ChannelView";
import { hasMemberList, MemberList } from "./MemberList";
import { ConnectionBanner } from "./Connection";
import type { MessageActions } from "./MessageItem";
import { lazyView } from "./lazy";
import { ShortcutsDialog, useShortcutsKey } from "./Shortcuts";
import { Sidebar } from "./Sidebar";
import { ThreadInbox } from "./ThreadInbox";
import { ThreadPanel } from "./ThreadPanel";
import { PinsPanel, usePinsPanel } from "./pins/Pins";
import { ToolDialog, type ToolName } from "./tools/Tools";
import { channelTitle, readState, sortedChannels, sortedDMs, unreadTotal } from "../state/selectors";
import { ChannelKind } from "../gen/svc/v1/types_pb";
import { VoiceRoom } from "./voice/VoiceRoom";
import { VoiceBar } from "./voice/VoiceSide";
import { NotifyHost, PushBanner } from "./notify/NotifyHost";
import { DiskFullBanner } from "./status/DiskFull";

// The dialogs are chunks loaded when first opened.
const Profile = lazyView("your profile", () => import("./Profile"), (m) => m.Profile, "dialog");
const MemberCard = lazyView("the member's card", () => import("./People"), (m) => m.MemberCard, "dialog");
const NewDM = lazyView("the new conversation", () => import("./People"), (m) => m.NewDM, "dialog");
// The notification settings (#/settings/notifications) load when first opened, as the other pages do.
const NotifySettingsPage = lazyView("your notification settings", () => import("./notify/NotifySettings"), (m) => m.NotifySettingsPage);

type DialogState =
  | { kind: "member"; id: string }
  | { kind: "profile" }
  | { kind: "browse" }
  | { kind: "newdm" }
  | { kind: "shortcuts" }
  | null;

/**
 * The chat screen: the store to read, every command (the screens below take the ones they
 * call), and the API for what the screens load themselves.
 */
export function Chat(props: { store: Store; act: Commands; api: Api; route: Route; onSignOut: () => void }) {
  const { store, act, api, route } = props;
  const state = useStore(store, "channels", "info");
  const [drawer, setDrawer] = useState(false);
  const [dialog, setDialog] = useState<DialogState>(null);
  const [tool, setTool] = useState<ToolName | null>(null);
  const focusAfter = useRef(""); // the address whose page takes the focus when it shows (below)
  // The member list beside the channel, as the person left it (over the channel on a phone,
  // where it starts hidden).
  const [members, setMembers] = useState(() => loadShown("members") && window.matchMedia("(min-width: 761px)").matches);
  const toggleMembers = () => {
    // With a thread or the pins open in its place, the list comes back instead of them.
    const show = !members || !!threadId || pins.open;
    saveShown("members", show);
    setMembers(show);
    if (pins.open) pins.close();
    if (threadId && channel) navigate(channelHash(channel.id));
  };

  const order = [...sortedChannels(state), ...sortedDMs(state)];
  const routeId = route.path[0] === "c" ? route.path[1] ?? "" : "";
  const channel = state.channels.get(routeId);
  const jumpTo = route.path[2] === "m" ? route.path[3] ?? "" : "";
  const threadId = route.path[2] === "t" ? route.path[3] ?? "" : "";
  const threadJumpTo = threadId && route.path[4] === "m" ? route.path[5] ?? "" : "";

  const community = showsCommunity(state, route, !!channel);
  const pins = usePinsPanel(channel?.id ?? "", threadId);
  const inbox = !community && route.path[0] === "threads";
  // The member list and the pins share the place beside the channel: the pins, asked for, win.
  const peopleShown = !!channel && !community && !threadId && !pins.open && members && hasMemberList(channel);
  // The person's own settings: #/settings/notifications (the digest emails link there).
  const settings = route.path[0] === "settings";
  const hashAtRender = location.hash;
  const lastChannel = useRef("");
  if (channel) lastChannel.current = channel.id;
  useEffect(() => {
    if (route.path[0] !== "reports") return;
    setTool(() => "moderation");
    navigate(lastChannel.current ? channelHash(lastChannel.current) : "#/", true);
  }, [route]);
  useEffect(() => {
    // No channel asked for, or one that is gone: the first one. Unless the address changed
    // since this render (the effect runs a frame later): a channel the person picked in
    // between is not replaced by the first one.
    if (location.hash !== hashAtRender) return;
    // A text channel first: a voice channel's screen is no place to land.
    const first = order.find((c) => c.kind !== ChannelKind.VOICE) ?? order[0];
    if (!channel && !community && !inbox && !settings && first) navigate(channelHash(first.id), true);
  }, [channel, community, inbox, settings, order.length, hashAtRender]);

  useEffect(() => {
    act.showing(channel?.id ?? "", (c, m) => navigate(channelHash(c, { message: m })));
  }, [channel?.id]);

  // The tab's title: unread messages in all channels, then where the person is.
  const unread = unreadTotal(state);
  const where = channel ? (channel.kind === 3 ? channelTitle(state, channel) : "#" + channel.name) : inbox ? "Threads" : "";
  const title = `${unread > 0 ? `(${unread}) ` : ""}${where ? where + " · " : ""}${state.info?.name ?? "Hearth"}`;
  useEffect(() => {
    document.title = title;
  }, [title]);

  // A channel opened from a dialog (browsing, a card's Message) that was opened from a phone's
  // drawer: the drawer closes too, and the channel's message box takes the focus.
  const openChannel = useCallback((id: string) => {
    // The channel already open: no change of address to wait for (the dialog gives the focus back).
    if (location.hash !== channelHash(id)) focusAfter.current = channelHash(id);
    setDrawer(false);
    navigate(channelHash(id));
  }, []);
  const actions: MessageActions = {
    onThread: (rootId) => channel && navigate(channelHash(channel.id, { thread: rootId })),
    onMember: (id) => setDialog({ kind: "member", id }),
    onCopyLink: (m) =>
      void copyText(new URL(messageHash(m), location.href).href).then((ok) =>
        act.tell(ok ? "Link to the message copied." : "Could not copy the link: the browser did not allow it.", ok ? "info" : "error"),
      ),
  };
  useShortcutsKey(() => setDialog({ kind: "shortcuts" }));

  // The shortcuts read the newest render's values, so a key pressed right after a switch
  // starts from where the person now is.
  const latest = useRef({ order, channel, drawer });
  latest.current = { order, channel, drawer };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const { order, channel, drawer } = latest.current;
      if (e.altKey && (e.key === "ArrowUp" || e.key === "ArrowDown")) {
        e.preventDefault();
        const list = e.shiftKey
          ? order.filter((c) => c.id === channel?.id || readState(state, c.id).unreadCount > 0 || readState(state, c.id).mentionCount > 0)
          : order;
        const i = list.findIndex((c) => c.id === channel?.id);
        const next = list[(i + (e.key === "ArrowDown" ? 1 : -1) + list.length) % list.length];
        if (next) navigate(channelHash(next.id));
      } else if (e.key === "Escape" && drawer) {
        closeDrawer("menu");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [state]);

  // The drawer (a phone's channel list) is a modal panel for the keyboard too: opened, the
  // focus goes into it (it comes before the channel in the page, where Tab from the menu button
  // would never reach it) and the rest of the page is inert; closed, the focus goes back to the
  // menu button, or into the message box of the channel picked in it, once that is open.
  function closeDrawer(to: "menu" | "picked") {
    if (to === "picked") {
      const link = document.activeElement?.closest("a[href]");
      focusAfter.current = link?.getAttribute("href") ?? location.hash;
    }
    setDrawer(false);
  }
  const drawerWasOpen = useRef(false);
  useEffect(() => {
    const was = drawerWasOpen.current;
    drawerWasOpen.current = drawer;
    const sidebar = document.getElementById("sidebar");
    if (drawer) {
      const link = sidebar?.querySelector<HTMLElement>(".side-link.current") ?? sidebar?.querySelector<HTMLElement>("a[href], button");
      link?.focus();
      return;
    }
    if (!was || focusAfter.current) return;
    const active = document.activeElement;
    if (active && active !== document.body && !sidebar?.contains(active)) return;
    document.querySelector<HTMLElement>(".main .menu-button")?.focus();
  }, [drawer]);
  useEffect(() => {
    // The address this render shows (the effect may run after the address has changed again).
    if (drawer || !focusAfter.current || hashAtRender !== focusAfter.current) return;
    focusAfter.current = "";
    const main = (sel: string) => document.querySelector<HTMLElement>(".main " + sel);
    focusOpened(main(".composer .composer-input"), main(".message-list") ?? main(".voice-join") ?? main(".menu-button"));
  }, [drawer, hashAtRender]);
  useEffect(() => {
    // A phone turned (or a window widened) past the drawer's width has no drawer to close.
    const wide = window.matchMedia("(min-width: 761px)");
    const on = () => wide.matches && setDrawer(false);
    wide.addEventListener("change", on);
    return () => wide.removeEventListener("change", on);
  }, []);

  // A dialog's close event comes a task after it closed: by then another may have opened, which
  // it must not close.
  const shown = dialog;
  const closeDialog = () => setDialog((d) => (d === shown ? null : d));
  return (
    <div class={`chat${drawer ? " drawer-open" : ""}${threadId ? " thread-open" : ""}${pins.open ? " pins-open" : ""}${peopleShown ? " members-open" : ""}`}>
      <a class="skip-link" href="#composer" onClick={(e) => (e.preventDefault(), document.querySelector<HTMLTextAreaElement>(".channel-view .composer .composer-input")?.focus())}>
        Skip to the message box
      </a>
      <div class="sidebar" id="sidebar">
        <Sidebar
          store={store}
          act={act}
          current={inbox ? "threads" : channel?.id ?? ""}
          onBrowse={() => setDialog({ kind: "browse" })}
          onNewDM={() => setDialog({ kind: "newdm" })}
          onProfile={() => setDialog({ kind: "profile" })}
          onNavigate={() => drawer && closeDrawer("picked")}
          onTool={(t) => (setTool(() => t), setDrawer(false))}
        />
      </div>
      {drawer && <div class="drawer-backdrop" onClick={() => closeDrawer("menu")} aria-hidden="true" />}
      <main class="main" inert={drawer}>
        <ConnectionBanner store={store} act={act} />
        <DiskFullBanner store={store} />
        <PushBanner store={store} act={act} />
        {community ? (
          <CommunityMain store={store} act={act} api={api} route={route} onMenu={() => setDrawer(true)} onMember={(id) => setDialog({ kind: "member", id })} />
        ) : inbox ? (
          <ThreadInbox store={store} api={api} onMenu={() => setDrawer(true)} />
        ) : settings ? (
          <NotifySettingsPage store={store} act={act} api={api} onMenu={() => setDrawer(true)} />
        ) : channel?.kind === ChannelKind.VOICE ? (
          <VoiceRoom key={channel.id} store={store} act={act} api={api} channel={channel} onMenu={() => setDrawer(true)} />
        ) : channel ? (
          <ChannelView
            key={channel.id}
            store={store}
            act={act}
            api={api}
            channel={channel}
            jumpTo={jumpTo}
            actions={actions}
            onMenu={() => setDrawer(true)}
            pins={pins}
            members={hasMemberList(channel) ? { open: peopleShown, onToggle: toggleMembers } : undefined}
          />
        ) : (
          <div class="empty-main">
            <button type="button" class="icon-button menu-button" aria-label="Open the channel list" onClick={() => setDrawer(true)}>
              ☰
            </button>
            <p class="muted">{order.length === 0 ? "You are not in any channel yet." : "Choose a channel."}</p>
          </div>
        )}
      </main>
      <VoiceBar store={store} act={act} where="dock" current={channel?.id ?? ""} inert={drawer} />
      {channel && threadId && (
        <ThreadPanel key={threadId} jumpTo={threadJumpTo} inert={drawer} store={store} act={act} api={api} channelId={channel.id} rootId={threadId} actions={actions} onClose={() => navigate(channelHash(channel.id))} />
      )}
      {peopleShown && channel && (
        <MemberList store={store} channel={channel} inert={drawer} onMember={(id) => setDialog({ kind: "member", id })} onClose={toggleMembers} />
      )}
      {channel && pins.open && <PinsPanel key={channel.id} store={store} act={act} channelId={channel.id} onClose={pins.close} />}
      <Notices store={store} act={act} />
      <CommunityAccent store={store} />
      <NotifyHost store={store} />
      {dialog?.kind === "member" && <MemberCard store={store} act={act} api={api} memberId={dialog.id} onClose={closeDialog} onOpenChannel={openChannel} />}
      {dialog?.kind === "profile" && <Profile store={store} act={act} api={api} onClose={closeDialog} onSignOut={props.onSignOut} />}
      {dialog?.kind === "browse" && <BrowseChannels store={store} act={act} api={api} onClose={closeDialog} onOpenChannel={openChannel} />}
      {dialog?.kind === "newdm" && <NewDM store={store} act={act} onClose={closeDialog} onOpenChannel={openChannel} />}
      {dialog?.kind === "shortcuts" && <ShortcutsDialog onClose={closeDialog} />}
      <ToolDialog store={store} act={act} api={api} tool={tool} setTool={setTool} />
    </div>
  );
}
