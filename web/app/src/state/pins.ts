// The pinned messages of a channel (EXTENSIONS.md 2), as the reducer (state/reducer.ts) keeps
// them in State.pins: loaded with ListPins when a channel's pins are first shown (its header's
// button counts them), then kept current by the stream's message_updated and message_deleted,
// which carry pinned_at_ms. The answer to ListPins may have been read before a change that the
// stream brings while it is on its way: such changes are kept and applied to the answer.

import type { Message } from "../gen/svc/v1/types_pb";

/** A channel's pins: newest pin first. */
export type PinList = {
  /** ListPins has answered (messages is then the channel's pins). */
  readonly loaded: boolean;
  readonly messages: readonly Message[];
  /** What the stream changed while ListPins was on its way. */
  readonly early: readonly Message[];
  /** Why the last load failed, or "". */
  readonly error: string;
};

/** A load starting: what is shown stays until the answer. */
export function pinsLoading(old: PinList | undefined): PinList {
  return { loaded: false, messages: old?.messages ?? [], early: [], error: "" };
}

/** ListPins' answer, with the changes that came meanwhile applied to it. */
export function pinsLoaded(old: PinList | undefined, answer: Message[]): PinList {
  let messages: readonly Message[] = answer;
  for (const m of old?.early ?? []) messages = applied(messages, m);
  return { loaded: true, messages, early: [], error: "" };
}

export function pinsFailed(old: PinList | undefined, error: string): PinList {
  return { loaded: false, messages: old?.messages ?? [], early: [], error };
}

/** A message changed (pinned, unpinned, edited, deleted): the list as it then is. */
export function pinChanged(old: PinList, m: Message): PinList {
  const messages = applied(old.messages, m);
  return { ...old, messages, early: old.loaded ? [] : [...old.early, m] };
}

function applied(list: readonly Message[], m: Message): readonly Message[] {
  const held = list.find((x) => x.id === m.id);
  // An older copy than the one held (an event after a call's answer) changes nothing; a
  // deletion is final whatever its seq.
  if (held && !m.deleted && held.seq > m.seq) return list;
  const pinned = m.pinnedAtMs > 0n && !m.deleted;
  if (!held && !pinned) return list;
  const rest = list.filter((x) => x.id !== m.id);
  if (!pinned) return rest;
  return [...rest, m].sort((a, b) => cmp(b.pinnedAtMs, a.pinnedAtMs) || cmp(b.seq, a.seq));
}

function cmp(a: bigint, b: bigint): number {
  return a > b ? 1 : a < b ? -1 : 0;
}
