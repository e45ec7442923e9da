// The community's pages in the main column, beside the sidebar: #/community/{tab} (settings,
// channels, roles, members, invites) and, for the owner of a new community, the setup wizard
// (#/setup, and wherever no channel is open while the setup is not done). Each tab is offered
// only to the ranks that may use it: members to everyone, invites to moderators and up, the
// rest to admins and the owner; a tab the person may not use (a rank lost meanwhile) falls back
// to the members.

import { useEffect } from "preact/hooks";
import { MemberRole } from "../../gen/svc/v1/types_pb";
import { absUrl } from "../../lib/api";
import type { Route } from "../../lib/router";
import type { Api } from "../../lib/api";
import { useStore, type State, type Store } from "../../state/store";
import { othersUnread } from "../../state/selectors";
import { MenuButton } from "../common";
import { lazyView } from "../lazy";
import type { ChannelsCommands } from "./Channels";
import { communityHash, type Tab } from "./routes";
import { isAdmin, isModerator } from "../../lib/ranks";
import type { RolesCommands } from "./Roles";
import type { SettingsCommands } from "./Settings";
import type { SetupCommands } from "./Setup";
import "./admin.css";

// Each page is a chunk of its own, loaded when it is first opened.
const SettingsScreen = lazyView("the settings", () => import("./Settings"), (m) => m.SettingsScreen);
const ChannelsScreen = lazyView("the channels", () => import("./Channels"), (m) => m.ChannelsScreen);
const RolesScreen = lazyView("the roles", () => import("./Roles"), (m) => m.RolesScreen);
const MembersScreen = lazyView("the members", () => import("./Members"), (m) => m.MembersScreen);
const InvitesScreen = lazyView("the invites", () => import("./Invites"), (m) => m.InvitesScreen);
const SetupWizard = lazyView("the setup", () => import("./Setup"), (m) => m.SetupWizard);

const TABS: { tab: Tab; label: string; may: (s: State) => boolean }[] = [
  { tab: "settings", label: "Settings", may: isAdmin },
  { tab: "channels", label: "Channels", may: isAdmin },
  { tab: "roles", label: "Roles", may: isAdmin },
  { tab: "members", label: "Members", may: () => true },
  { tab: "invites", label: "Invites", may: isModerator },
];

/** The tabs the person may open. */
export function tabsFor(s: State): Tab[] {
  return TABS.filter((t) => t.may(s)).map((t) => t.tab);
}

function needsWizard(s: State): boolean {
  return !!s.info?.needsSetup && s.me?.role === MemberRole.OWNER;
}

/** Whether the main column shows one of these pages rather than a channel. */
export function showsCommunity(s: State, route: Route, channelOpen: boolean): boolean {
  if (route.path[0] === "community") return true;
  return needsWizard(s) && (route.path[0] === "setup" || !channelOpen);
}

/** The commands of the community's pages. */
export type CommunityCommands = SettingsCommands & ChannelsCommands & RolesCommands & SetupCommands;

export function CommunityMain(props: { store: Store; act: CommunityCommands; api: Api; route: Route; onMenu: () => void; onMember: (id: string) => void }) {
  const { store, act, api, route } = props;
  const state = useStore(store, "me", "info");
  const page = { store, act, api };
  if (route.path[0] !== "community") {
    return (
      <section class="community-page" aria-label="Set up the community">
        <PageHead store={store} title="Set up your community" onMenu={props.onMenu} />
        <div class="community-scroll">
          <SetupWizard {...page} />
        </div>
      </section>
    );
  }
  const allowed = tabsFor(state);
  const asked = route.path[1] as Tab;
  const tab = allowed.includes(asked) ? asked : "members";
  return (
    <section class="community-page" aria-label={state.info?.name || "Community"}>
      <PageHead store={store} title={state.info?.name || "Community"} onMenu={props.onMenu} />
      <nav class="community-tabs" aria-label="Community pages">
        {TABS.filter((t) => allowed.includes(t.tab)).map((t) => (
          <a key={t.tab} href={communityHash(t.tab)} class={t.tab === tab ? "community-tab current" : "community-tab"} aria-current={t.tab === tab ? "page" : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      <div class="community-scroll" key={tab}>
        {tab === "settings" && <SettingsScreen {...page} />}
        {tab === "channels" && <ChannelsScreen {...page} />}
        {tab === "roles" && <RolesScreen {...page} />}
        {tab === "members" && <MembersScreen store={store} onMember={props.onMember} />}
        {tab === "invites" && <InvitesScreen store={store} api={api} />}
      </div>
    </section>
  );
}

function PageHead(props: { store: Store; title: string; onMenu: () => void }) {
  // The unread counts as of the render (the chat around re-renders for them).
  const { store } = props;
  const banner = store.state.info?.banner?.url;
  return (
    <>
      {banner && <img class="community-banner" src={absUrl(store.base, banner)} alt="" />}
      <header class="channel-head">
        <MenuButton unread={othersUnread(store.state, "")} onMenu={props.onMenu} />
        <h2 class="channel-title">{props.title}</h2>
      </header>
    </>
  );
}

/** The sidebar's way into the community's pages: settings for admins, the members for others. */
export function CommunityLink(props: { store: Store; onNavigate: () => void }) {
  const admin = isAdmin(useStore(props.store, "me"));
  const to = communityHash(admin ? "settings" : "members");
  const label = admin ? "Community settings" : "Members of the community";
  return (
    <a class="icon-button community-link" href={to} aria-label={label} title={label} onClick={props.onNavigate}>
      <span aria-hidden="true">{admin ? "⚙" : "👥"}</span>
    </a>
  );
}

/**
 * The community's accent colour on the whole client, while it has one: the buttons, links and
 * highlights take it, with a hover shade and a text colour that reads on it.
 */
export function CommunityAccent(props: { store: Store }) {
  const color = useStore(props.store, "info").info?.accentColor ?? "";
  useEffect(() => {
    const root = document.documentElement.style;
    if (!/^#[0-9a-fA-F]{6}$/.test(color)) {
      for (const p of ["--accent", "--accent-hover", "--accent-fg"]) root.removeProperty(p);
      return;
    }
    root.setProperty("--accent", color);
    root.setProperty("--accent-hover", shade(color, 0.8));
    // Near-black text from the luminance where it contrasts more than white does.
    root.setProperty("--accent-fg", luminance(color) > 0.2 ? "#1c1b1a" : "#ffffff");
  }, [color]);
  return null;
}

function channels(hex: string): number[] {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

function shade(hex: string, f: number): string {
  return "#" + channels(hex).map((c) => Math.round(c * f).toString(16).padStart(2, "0")).join("");
}

/** Relative luminance (WCAG), 0 for black to 1 for white. */
export function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
