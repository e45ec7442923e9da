// What the person may do, from their rank, so that screens offer only that (the server checks
// every call again and its refusal is shown as it says). Ranks: owner > admin > moderator >
// member; nobody acts on a member of equal or higher rank.

import { MemberKind, MemberRole, type Member } from "../gen/svc/v1/types_pb";

type Ranked = { readonly me?: Member; readonly members: ReadonlyMap<string, Member> };

/** The person's own rank (MEMBER until the state is loaded). */
export function myRank(s: Ranked): MemberRole {
  return s.me?.role ?? MemberRole.MEMBER;
}

/** The person ranks at least this high. */
export function atLeast(s: Ranked, role: MemberRole): boolean {
  return myRank(s) >= role;
}

/** Moderators and higher: reports, kicks, bans, emoji. */
export function isModerator(s: Ranked): boolean {
  return atLeast(s, MemberRole.MODERATOR);
}

/** Admins and the owner: bots and plugins. */
export function isAdmin(s: Ranked): boolean {
  return atLeast(s, MemberRole.ADMIN);
}

/** The person outranks a member of this rank. */
export function outranksRank(s: Ranked, role: MemberRole): boolean {
  return myRank(s) > role;
}

/** A moderator may kick or ban this member: a person (bots are deleted, not banned) of lower rank. */
export function canRemove(s: Ranked, m: Member): boolean {
  return isModerator(s) && m.id !== s.me?.id && m.kind !== MemberKind.BOT && outranksRank(s, m.role);
}

/** A moderator may time this member out: anyone of lower rank, bots included. */
export function canTimeOut(s: Ranked, m: Member): boolean {
  return isModerator(s) && m.id !== s.me?.id && outranksRank(s, m.role);
}

/**
 * The person may delete this author's messages: their own, or as a moderator those of a lower
 * rank or of someone who left (who has no rank any more).
 */
export function canDeleteMessageOf(s: Ranked, authorId: string): boolean {
  if (authorId === s.me?.id) return true;
  if (!isModerator(s)) return false;
  const author = s.members.get(authorId);
  return !author || outranksRank(s, author.role);
}

export const RANK_NAMES: Record<number, string> = {
  [MemberRole.OWNER]: "Owner",
  [MemberRole.ADMIN]: "Admin",
  [MemberRole.MODERATOR]: "Moderator",
  [MemberRole.MEMBER]: "Member",
};
