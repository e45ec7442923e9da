// The hash routes of the community's pages: a module of its own, small, for the sidebar's link
// and the pages' tabs, which load with the chat, while the pages load when opened.

/** The screens of the community: #/community/{tab}. */
export type Tab = "settings" | "channels" | "roles" | "members" | "invites";

export function communityHash(tab: Tab): string {
  return "#/community/" + tab;
}
