// How the safety screens say times: when a timeout ends, how long is left of a wait, and the
// lengths offered for timeouts and slowmode.

import { formatTime } from "../common";

const dayTimeFmt = new Intl.DateTimeFormat(undefined, { weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });

/** A time to come: "4:05 PM" today, "Tue, Dec 8, 4:05 PM" another day. */
export function untilText(ms: number, now = Date.now()): string {
  return new Date(ms).toDateString() === new Date(now).toDateString() ? formatTime(ms) : dayTimeFmt.format(ms);
}

/** What is left of a wait, as a clock counts it down: "0:23", "4:05", "1:02:03". */
export function countdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** A length in seconds in words: "60 seconds", "5 minutes", "1 hour", "1 week". */
export function lengthText(seconds: number): string {
  const units: [number, string][] = [
    [604_800, "week"],
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ];
  // 60 seconds is said so; a minute and more in its largest whole unit.
  for (const [size, name] of units) {
    if (seconds > 60 && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? "" : "s"}`;
    }
  }
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}

/** The timeouts offered on a member's card, in seconds. */
export const TIMEOUTS = [60, 300, 600, 3600, 86_400, 604_800];

/** The slowmodes offered in a channel's settings, in seconds (0 is off). */
export const SLOWMODES = [0, 5, 10, 30, 60, 300, 900, 3600, 21_600];
