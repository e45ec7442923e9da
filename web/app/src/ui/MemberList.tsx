// The people of a channel, beside it (over it on a phone): who is here, online first, with their
// presence and status; a name opens the member's card. Toggled by the button in the channel's
// header; the choice is kept for the next visit (lib/storage). At most ROWS_MAX rows are drawn,
// however large the community: the rest are counted.

import { useEffect, useRef } from "preact/hooks";
import { ChannelKind, MemberKind, Presence, type Channel, type Member } from "../gen/svc/v1/types_pb";
import { channelMembers, channelTitle } from "../state/selectors";
import { useStore, type Store } from "../state/store";
import { Avatar, ImportedTag, PresenceDot, presenceLabel } from "./common";
import "./memberlist.css";

const ROWS_MAX = 300;

/** The header's button that shows or hides the list, with how many are in the channel. */
export function MembersButton(props: { count: number; open: boolean; onToggle: () => void }) {
  return (
    <button
      type="button"
      class="icon-button members-toggle"
      aria-pressed={props.open}
      aria-label={`Members (${props.count})`}
      title={props.open ? "Hide the member list" : "Show the member list"}
      onClick={props.onToggle}
    >
      <span aria-hidden="true">👥</span>
      <span class="members-count" aria-hidden="true">
        {props.count}
      </span>
    </button>
  );
}

/** Whether a channel has a member list to show: not a DM between two. */
export function hasMemberList(c: Channel): boolean {
  return c.kind !== ChannelKind.DM || c.memberIds.length > 2;
}

export function MemberList(props: { store: Store; channel: Channel; onMember: (id: string) => void; onClose: () => void; inert?: boolean }) {
  const { store, channel } = props;
  const state = useStore(store, "members", "status", "me");
  const list = channelMembers(state, channel);
  const title = channel.kind === ChannelKind.DM ? channelTitle(state, channel) : "#" + channel.name;
  const groups: [string, Member[]][] = state.lost
    ? [["Presence unknown", list]]
    : [
        ["Online", list.filter((m) => m.presence === Presence.ONLINE)],
        ["Away", list.filter((m) => m.presence === Presence.AWAY)],
        ["Offline", list.filter((m) => m.presence !== Presence.ONLINE && m.presence !== Presence.AWAY)],
      ];
  let room = ROWS_MAX;
  // Over the channel (a phone), the list takes the focus; closed, it gives it back to its button.
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    if (window.matchMedia("(max-width: 760px)").matches) panel.current?.querySelector<HTMLElement>(".people-row, button")?.focus();
    return () => {
      const active = document.activeElement;
      if (active && active !== document.body && !panel.current?.contains(active)) return;
      setTimeout(() => document.querySelector<HTMLElement>(".channel-view .members-toggle")?.focus());
    };
  }, []);
  return (
    <aside
      ref={panel}
      class="people-panel"
      aria-label={`Members of ${title}`}
      inert={props.inert}
      onKeyDown={(e) => {
        if (e.key === "Escape" && !e.defaultPrevented && !document.querySelector("dialog[open]")) {
          e.preventDefault();
          props.onClose();
        }
      }}
    >
      <header class="thread-head">
        <h2>
          Members <span class="people-where">{title}</span>
        </h2>
        <button type="button" class="icon-button" aria-label="Close the member list" onClick={props.onClose}>
          ✕
        </button>
      </header>
      <div class="people-scroll">
        {groups.map(([label, members]) => {
          if (members.length === 0) return null;
          const shown = members.slice(0, Math.max(0, room));
          room -= shown.length;
          return (
            <section class="people-group" key={label} aria-label={`${label}, ${members.length}`}>
              <h3 class="people-title" aria-hidden="true">
                {label} — {members.length}
              </h3>
              <ul class="people-rows">
                {shown.map((m) => {
                  const name = m.displayName || m.username;
                  const status = [m.statusEmoji, m.statusText].filter(Boolean).join(" ");
                  return (
                    <li key={m.id}>
                      <button type="button" class="people-row" aria-label={`${name}${m.id === state.me?.id ? " (you)" : ""}${m.imported ? ", imported" : ""}, ${presenceLabel(m.presence, state.lost)}`} onClick={() => props.onMember(m.id)}>
                        <span class="people-avatar">
                          <Avatar base={store.base} member={m} size={32} />
                          <PresenceDot presence={m.presence} unknown={state.lost} />
                        </span>
                        <span class="people-names">
                          <span class="people-name">
                            {name}
                            {m.kind === MemberKind.BOT && <span class="tag">bot</span>}
                            {m.imported && <ImportedTag />}
                          </span>
                          {status && <span class="people-status">{status}</span>}
                        </span>
                      </button>
                    </li>
                  );
                })}
              </ul>
              {shown.length < members.length && <p class="people-more muted small">and {members.length - shown.length} more</p>}
            </section>
          );
        })}
      </div>
    </aside>
  );
}
