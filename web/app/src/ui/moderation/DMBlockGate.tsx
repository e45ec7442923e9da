// Where the person writes in a DM with someone they blocked (ChannelView): a module of its own,
// for the chat loads it at start, while the member card's moderation (MemberModeration.tsx) loads
// with the card.

import type { ComponentChildren } from "preact";
import type { Commands } from "../../state/commands";
import { nameOf } from "../../state/selectors";
import type { State } from "../../state/store";
import "./moderation.css";

/**
 * Where the person writes in a DM: the composer (children), or, in a DM with someone they
 * blocked, in its place a notice that nothing can be sent there (the server refuses it) with
 * Unblock. The draft stays and comes back with the composer.
 */
export function DMBlockGate(props: {
  state: Pick<State, "me" | "members" | "blocked">;
  act: Pick<Commands, "toggleBlock">;
  memberIds: string[];
  children: ComponentChildren;
}) {
  const { state } = props;
  const others = props.memberIds.filter((id) => id !== state.me?.id && state.blocked.has(id));
  if (others.length === 0) return <>{props.children}</>;
  const names = others.map((id) => nameOf(state, id)).join(", ");
  return (
    <div class="dm-block-notice" role="note">
      <span>
        You blocked {names}: messages cannot be sent in this conversation until you unblock {others.length === 1 ? "them" : "all of them"}.
      </span>
      {others.length === 1 && (
        <button type="button" class="button" onClick={() => props.act.toggleBlock(others[0])}>
          Unblock
        </button>
      )}
    </div>
  );
}
