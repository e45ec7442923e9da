// The rank rules of the API, as the screens need them to offer only what the server allows
// (docs/decisions.md, "Membership and moderation", "DMs, private channels and roles"). The
// server decides: these only keep controls that would be refused off the screen. The rank
// itself and who is a moderator or an admin are lib/ranks.ts's.

import { MemberRole, type Channel, type Member } from "../../gen/svc/v1/types_pb";
import type { State } from "../../state/store";
import { myRank, outranksRank, RANK_NAMES } from "../../lib/ranks";

export function rankName(r: MemberRole): string {
  return RANK_NAMES[r] ?? "Member";
}

/** The ranks the caller may give a member: below their own, if the member ranks below them. */
export function ranksToGive(s: State, target: Member): MemberRole[] {
  const mine = myRank(s);
  if (mine < MemberRole.ADMIN || target.role >= mine) return [];
  return [MemberRole.MEMBER, MemberRole.MODERATOR, MemberRole.ADMIN].filter((r) => r < mine);
}

/** Why the caller may not change a member's rank, for the card; empty when they may. */
export function rankRefusal(s: State, target: Member): string {
  const mine = myRank(s);
  if (mine < MemberRole.ADMIN) return "";
  if (target.id === s.me?.id) return "Nobody changes their own rank.";
  if (target.role >= mine)
    return `Only someone of a higher rank than ${rankName(target.role).toLowerCase()} can change this member's rank.`;
  return "";
}

/** Admins set the custom roles of members below them and their own; the owner anyone's. */
export function maySetRoles(s: State, target: Member): boolean {
  const mine = myRank(s);
  return mine >= MemberRole.ADMIN && (target.id === s.me?.id || target.role < mine);
}

/**
 * Removing someone else from a private channel: a member of it, moderator or higher, of a higher
 * rank than the target.
 */
export function mayRemoveFromChannel(s: State, channel: Channel, target: Member | undefined): boolean {
  const me = s.me;
  if (!me || !channel.memberIds.includes(me.id) || target?.id === me.id) return false;
  if (me.role < MemberRole.MODERATOR) return false;
  // Someone who left the community has no rank any more.
  return !target || outranksRank(s, target.role);
}

/** Roles known to the session, in their order, without ids of deleted ones. */
export function knownRoles(s: State, ids: string[]) {
  const set = new Set(ids);
  return s.roles.filter((r) => set.has(r.id));
}
