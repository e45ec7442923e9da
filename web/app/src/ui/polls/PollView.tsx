// A poll on its message (EXTENSIONS.md 4): the question, each option a button that votes (one
// option, or several when the poll allows it; choosing one's own choice again takes it back),
// with a bar, the count and the share of the voters, and who voted on hover or focus. The
// results follow the message's message_updated, so they move live on every screen. A poll
// closed, or past its closing time, shows its final results; its author and moderators may
// close it early. Choices made while a vote is on its way are kept, shown at once, and sent when
// it is answered (the last one counts): two options clicked quickly in a poll of several are
// both voted for.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Message, Poll } from "../../gen/svc/v1/types_pb";
import { canDeleteMessageOf } from "../../lib/ranks";
import type { Commands } from "../../state/commands";
import { nameOf } from "../../state/selectors";
import type { State } from "../../state/store";
import { formatFull } from "../common";
import "./polls.css";

export type PollCommands = Pick<Commands, "vote" | "closePoll">;

/** Whether a poll takes no more votes: closed, or past its closing time (now, Unix ms). */
export function pollClosed(p: Poll, now: number): boolean {
  return p.closed || (p.closesAtMs > 0n && now >= Number(p.closesAtMs));
}

/** Re-renders at the poll's closing time, and each minute before it (the time left shows). */
function useNow(p: Poll): number {
  const [now, setNow] = useState(Date.now());
  const closes = Number(p.closesAtMs);
  useEffect(() => {
    if (p.closed || closes === 0 || now >= closes) return;
    const t = setTimeout(() => setNow(Date.now()), Math.min(60_000, closes - now + 50));
    return () => clearTimeout(t);
  }, [now, closes, p.closed]);
  return now;
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** "closes in 3 hours", "closes in 2 days": the time left, roughly. */
function closesIn(ms: number): string {
  const min = Math.max(1, Math.round(ms / 60_000));
  if (min < 60) return relative.format(min, "minute");
  const h = Math.round(min / 60);
  if (h < 48) return relative.format(h, "hour");
  return relative.format(Math.round(h / 24), "day");
}

export function PollView(props: { state: Pick<State, "me" | "members">; act: PollCommands; message: Message }) {
  const { state, act, message: m } = props;
  const p = m.poll!;
  const me = state.me?.id ?? "";
  const now = useNow(p);
  const closed = pollClosed(p, now);
  // What the person chose that the server has not answered yet, shown in place of their votes
  // (a ref too, for a second click before the page renders the first), and the choice waiting
  // for the vote on its way to be answered.
  const [wanted, setWanted] = useState<string[] | null>(null);
  const latest = useRef<string[] | null>(null);
  const sending = useRef(false);
  const queued = useRef<string[] | null>(null);
  const [confirming, setConfirming] = useState(false);
  const voters = new Set(p.options.flatMap((o) => o.voterIds));
  const mine = wanted ?? p.options.filter((o) => o.voterIds.includes(me)).map((o) => o.id);
  const top = Math.max(0, ...p.options.map((o) => o.voterIds.length));
  // As for deleting it: its author, or a moderator who outranks the author (or the author left).
  const mayClose = !closed && canDeleteMessageOf(state, m.authorId);

  const choose = (id: string) => {
    if (closed) return;
    const from = latest.current ?? mine;
    const next = p.multiple ? (from.includes(id) ? from.filter((x) => x !== id) : [...from, id]) : from.includes(id) ? [] : [id];
    latest.current = next;
    setWanted(next);
    queued.current = next;
    if (!sending.current) void send();
  };
  // Sends the choice queued, and the next one made meanwhile, until none is left; then the votes
  // shown are the server's again (each answer has updated the message; a refusal, with its
  // notice, leaves them as they were).
  const send = async () => {
    sending.current = true;
    try {
      for (let next = queued.current; next; next = queued.current) {
        queued.current = null;
        await act.vote(m, next);
      }
    } finally {
      sending.current = false;
      latest.current = null;
      setWanted(null);
    }
  };

  const total = voters.size;
  const votes = `${total} ${total === 1 ? "person voted" : "people voted"}`;
  return (
    <section class={closed ? "poll poll-closed" : "poll"} aria-label={`Poll: ${p.question}`}>
      <p class="poll-question">
        <span aria-hidden="true">📊</span> {p.question}
      </p>
      <p class="poll-kind muted small">{closed ? "Poll closed · final results" : p.multiple ? "Choose one or more" : "Choose one"}</p>
      <ul class="poll-options">
        {p.options.map((o) => {
          const n = o.voterIds.length;
          const pct = total > 0 ? Math.round((n * 100) / total) : 0;
          const chosen = mine.includes(o.id);
          const who = o.voterIds.map((id) => nameOf(state, id)).join(", ");
          const whoId = `poll-${m.id}-${o.id}-voters`;
          const cls = ["poll-choice"];
          if (chosen) cls.push("poll-chosen");
          if (closed && n > 0 && n === top) cls.push("poll-winner");
          return (
            <li key={o.id} class="poll-option">
              <button
                type="button"
                class={cls.join(" ")}
                aria-pressed={chosen}
                aria-disabled={closed}
                aria-label={`${o.text}: ${n} ${n === 1 ? "vote" : "votes"}, ${pct}%`}
                aria-describedby={n > 0 ? whoId : undefined}
                onClick={() => choose(o.id)}
              >
                <span class="poll-bar" style={{ width: `${pct}%` }} aria-hidden="true" />
                <span class="poll-mark" aria-hidden="true">
                  {p.multiple ? (chosen ? "☑" : "☐") : chosen ? "◉" : "○"}
                </span>
                <span class="poll-text">{o.text}</span>
                <span class="poll-count" aria-hidden="true">
                  {n} · {pct}%
                </span>
              </button>
              {n > 0 && (
                <span class="poll-voters" role="tooltip" id={whoId}>
                  {who}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      <div class="poll-foot muted small">
        <span>
          {votes}
          {!closed && p.closesAtMs > 0n && (
            <span title={formatFull(p.closesAtMs)}> · closes {closesIn(Number(p.closesAtMs) - now)}</span>
          )}
          {!closed && p.closesAtMs === 0n && " · open until closed"}
        </span>
        {mayClose &&
          (confirming ? (
            <span class="poll-confirm">
              Close the poll for good?{" "}
              <button type="button" class="button button-danger" onClick={() => void act.closePoll(m).then(() => setConfirming(false))}>
                Close poll
              </button>
              <button type="button" class="button" onClick={() => setConfirming(false)}>
                Keep it open
              </button>
            </span>
          ) : (
            <button type="button" class="button poll-close" onClick={() => setConfirming(true)}>
              Close poll
            </button>
          ))}
      </div>
    </section>
  );
}
