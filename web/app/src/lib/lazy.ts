// A part of the client loaded on first use, as a chunk of its own beside app.js (esbuild splits
// at each import()), so that what most pages never need does not weigh on every start: the
// code highlighter, the table of standard emoji shortcodes.

import { useEffect } from "preact/hooks";
import { Emitter, useTopics } from "./emitter";

export class Lazy<T> {
  /** The loaded value, once it is here. */
  value: T | undefined;
  private loading: Promise<T> | undefined;
  private em = new Emitter<"loaded">();

  constructor(private readonly loader: () => Promise<T>) {}

  /** Loads the value, once; a failed load (the network) is tried again on the next call. */
  load(): Promise<T> {
    this.loading ??= this.loader().then(
      (v) => {
        this.value = v;
        this.em.emit("loaded");
        return v;
      },
      (e: unknown) => {
        this.loading = undefined;
        throw e;
      },
    );
    return this.loading;
  }

  /**
   * The value in a component: undefined at first, while it loads, and the component renders
   * again when it comes (until then it shows what it can without it). Nothing is loaded for a
   * component that does not want it (wanted false), which still calls this, as hooks must be.
   */
  use(wanted = true): T | undefined {
    const waiting = wanted && this.value === undefined;
    useTopics(waiting ? this.em : undefined, "loaded");
    useEffect(() => {
      if (waiting) this.load().catch(() => {});
    }, [waiting]);
    return wanted ? this.value : undefined;
  }
}
