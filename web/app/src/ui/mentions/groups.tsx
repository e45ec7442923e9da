// @here and @everyone (EXTENSIONS.md 3) in the client: offered in the composer's mention list to
// those whose group mentions count (state/selectors.ts, mayMentionGroups), and shown in messages
// as chips, highlighted for the people they reached (the message says whether each counted).

import type { Message } from "../../gen/svc/v1/types_pb";
import type { RenderContext } from "../../lib/markdown";
import { mayMentionGroups } from "../../state/selectors";
import { useStore, type Store } from "../../state/store";
import "./mentions.css";

export type GroupName = "here" | "everyone";

/** A group mention the mention list offers. */
export type GroupOption = { name: GroupName; hint: string };

/** Whether the person's group mentions count in this channel, following their rank and the setting. */
export function useGroupMentions(store: Store, channelId: string): boolean {
  return mayMentionGroups(useStore(store, "info", "me", "channels"), channelId);
}

/** The group mentions that start with what is typed after @, for those who may use them. */
export function groupOptions(query: string, allowed: boolean, dm: boolean): GroupOption[] {
  if (!allowed) return [];
  const q = query.toLowerCase();
  const where = dm ? "this conversation" : "this channel";
  const all: GroupOption[] = [
    { name: "here", hint: `Notify everyone online in ${where}` },
    { name: "everyone", hint: `Notify everyone in ${where}` },
  ];
  return all.filter((g) => g.name.startsWith(q));
}

/** A group mention in the composer's mention list. */
export function GroupOptionItem(props: { option: GroupOption; id: string; selected: boolean; onPick: () => void }) {
  return (
    <li
      id={props.id}
      role="option"
      aria-selected={props.selected}
      class={props.selected ? "mention-option mention-group-option selected" : "mention-option mention-group-option"}
      onMouseDown={(e) => {
        e.preventDefault();
        props.onPick();
      }}
    >
      <span class="mention-group-icon" aria-hidden="true">
        📣
      </span>
      <span class="mention-name">@{props.option.name}</span>
      <span class="muted">{props.option.hint}</span>
    </li>
  );
}

/** The markdown context for a message, with its group mentions as chips. */
export function withGroups(ctx: RenderContext, m: Message): RenderContext {
  return { ...ctx, groupMention: (name) => <GroupChip name={name} counted={name === "here" ? m.mentionsHere : m.mentionsEveryone} mine={m.authorId === ctx.meId} /> };
}

function GroupChip(props: { name: GroupName; counted: boolean; mine: boolean }) {
  const { name, counted } = props;
  const title = !counted
    ? "Notified nobody: the sender may not notify the whole channel"
    : name === "here"
      ? "Notified everyone who was online in the channel"
      : "Notified everyone in the channel";
  // Reaching the person: highlighted as their own mention (for @here, being in the channel is
  // taken as reached: who was online is not said).
  const cls = counted && !props.mine ? "mention mention-group mention-me" : counted ? "mention mention-group" : "mention mention-group mention-quiet";
  return (
    <span class={cls} title={title}>
      @{name}
    </span>
  );
}
