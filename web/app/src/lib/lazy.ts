// A part of the client loaded on first use, as a chunk of its own beside app.js (esbuild splits
// at each import()), so that what most pages never need does not weigh on every start: the
// code highlighter, the table of standard emoji shortcodes, and the screens away from the chat
// (ui/lazy.tsx).

import { useEffect } from "preact/hooks";
import { Emitter, useTopics } from "./emitter";

export class Lazy<T> {
  /** The loaded value, once it is here. */
  value: T | undefined;
  /** Why the last load failed (the network), until the next one starts; undefined otherwise. */
  error: unknown;
  private loading: Promise<T> | undefined;
  private em = new Emitter<"changed">();

  constructor(private readonly loader: () => Promise<T>) {}

  /** Loads the value, once; a failed load (the network) is tried again on the next call. */
  load(): Promise<T> {
    if (!this.loading) {
      this.error = undefined;
      this.em.emit("changed");
      this.loading = this.loader().then(
        (v) => {
          this.value = v;
          this.em.emit("changed");
          return v;
        },
        (e: unknown) => {
          this.loading = undefined;
          this.error = e ?? new Error("not loaded");
          this.em.emit("changed");
          throw e;
        },
      );
    }
    return this.loading;
  }

  /**
   * Loads the value when the browser has nothing else to do: for what is one step away (the
   * search, one keystroke), so that it is there when asked for, without delaying the start.
   */
  prefetch(): void {
    if (this.value !== undefined || this.loading) return;
    const go = () => void this.load().catch(() => {});
    if ("requestIdleCallback" in window) requestIdleCallback(go, { timeout: 5000 });
    else setTimeout(go, 1000);
  }

  /**
   * The value in a component: undefined at first, while it loads, and the component renders
   * again when it comes or fails (until then it shows what it can without it; `error` says
   * why it did not come). Nothing is loaded for a component that does not want it (wanted
   * false), which still calls this, as hooks must be.
   */
  use(wanted = true): T | undefined {
    const waiting = wanted && this.value === undefined;
    useTopics(waiting ? this.em : undefined, "changed");
    useEffect(() => {
      if (waiting) this.load().catch(() => {});
    }, [waiting]);
    return wanted ? this.value : undefined;
  }
}
