// Imported members claimed (EXTENSIONS.md 9): ClaimMember gives a placeholder's messages and
// reactions to a real member. The server rewrites them in changes of a few hundred messages and
// sends no event per message: the placeholder's member_updated (claimed_by set) comes first,
// then one per change, then its member_left. The client puts the member in the placeholder's
// place at the first of them, in the messages it holds and in those it loads while the claim
// goes on (State.claims: placeholder id to member id, kept for the session).

import type { Message, Reaction } from "../gen/svc/v1/types_pb";

/** m with every claimed placeholder in it replaced by its member; m itself when none is. */
export function claimed(m: Message, claims: ReadonlyMap<string, string>): Message {
  if (claims.size === 0) return m;
  const to = (id: string) => claims.get(id) ?? id;
  let changed = false;
  const reactions = m.reactions.map((r): Reaction => {
    if (!r.memberIds.some((id) => claims.has(id))) return r;
    changed = true;
    // As the server does it: the member in the placeholder's place, unless they reacted too.
    const ids: string[] = [];
    for (const id of r.memberIds) if (!ids.includes(to(id)) && !(claims.has(id) && r.memberIds.includes(to(id)))) ids.push(to(id));
    return { ...r, memberIds: ids };
  });
  const text = m.text.replace(/<@([^>\s]+)>/g, (all, id: string) => (claims.has(id) ? `<@${to(id)}>` : all));
  const replyTo = m.replyTo && claims.has(m.replyTo.authorId) ? { ...m.replyTo, authorId: to(m.replyTo.authorId) } : m.replyTo;
  if (!changed && text === m.text && replyTo === m.replyTo && !claims.has(m.authorId) && !claims.has(m.pinnedBy)) return m;
  return { ...m, authorId: to(m.authorId), pinnedBy: m.pinnedBy && to(m.pinnedBy), text, reactions, replyTo };
}

/** The messages of list with the claims applied: list itself when none changed. */
export function allClaimed<T extends readonly Message[]>(list: T, claims: ReadonlyMap<string, string>): T {
  if (claims.size === 0) return list;
  let changed = false;
  const out = list.map((m) => {
    const c = claimed(m, claims);
    if (c !== m) changed = true;
    return c;
  });
  return (changed ? out : list) as T;
}
