// What the composer says while the person cannot send: timed out (until when; the composer is
// disabled), or waiting for slowmode (a countdown, after which Send works again). The State
// says when each ends (state/reducer.ts ends them on time); this note only counts down.

import { useEffect, useReducer } from "preact/hooks";
import type { SendHold } from "../../state/selectors";
import { countdown, untilText } from "./time";
import "./moderation.css";

export function HoldNote(props: { hold: SendHold; id: string }) {
  const { hold } = props;
  const [, tick] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (hold.kind !== "slowmode") return;
    const timer = window.setInterval(tick, 1000);
    return () => clearInterval(timer);
  }, [hold.kind, hold.until]);
  if (hold.kind === "timeout") {
    return (
      <p class="composer-note hold-note hold-timeout" id={props.id} role="status">
        You are timed out until {untilText(hold.until)}: you can read, but not send, react or report until then.
      </p>
    );
  }
  return (
    <p class="composer-note hold-note" id={props.id}>
      Slowmode: you can send again in <span class="hold-countdown">{countdown(hold.until - Date.now())}</span>
    </p>
  );
}
