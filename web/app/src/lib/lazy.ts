// A part of the client loaded on first use, as a chunk of its own beside app.js (esbuild splits
// at each import()), so that what most pages never need does not weigh on every start: the
// code highlighter, the table of standard emoji shortcodes, protobuf's JSON reader, and the
// screens away from the chat (ui/lazy.tsx).

import { useEffect } from "preact/hooks";
import { Emitter, useTopics } from "./emitter";

export class Lazy<M, T = M> {
  /** The loaded value, once it is here. */
  value: T | undefined;
  /** Why the last load failed (the network), until the next one starts; undefined otherwise. */
  error: unknown;
  private loading: Promise<T> | undefined;
  private failures = 0;
  private em = new Emitter<"changed">();

  /**
   * importer is `() => import("./module")`, exactly (see retry); pick makes the value of the
   * module (the module itself when there is none).
   */
  constructor(
    private readonly importer: () => Promise<M>,
    private readonly pick: (m: M) => T = (m) => m as unknown as T,
  ) {}

  /** Loads the value, once; a failed load (the network) is tried again on the next call. */
  load(): Promise<T> {
    if (!this.loading) {
      this.error = undefined;
      this.em.emit("changed");
      this.loading = (this.failures === 0 ? this.importer() : this.retry()).then(
        (m) => {
          this.value = this.pick(m);
          this.em.emit("changed");
          return this.value;
        },
        (e: unknown) => {
          this.loading = undefined;
          this.failures++;
          this.error = e ?? new Error("not loaded");
          this.em.emit("changed");
          throw e;
        },
      );
    }
    return this.loading;
  }

  /**
   * The module again after a failure. The browser keeps a module that failed to load as failed,
   * by its address, without asking the network again (Chromium does), so the retry asks for
   * the chunk at another address: its own with a query. The bundle has written the chunk's
   * address in the importer (`()=>import("./Profile-4GX2.js")`), relative to this module's:
   * the chunks are all in one folder. (An importer written otherwise is simply called again.)
   */
  private retry(): Promise<M> {
    const spec = /^\(\)\s*=>\s*import\((["'])(\.\/[^"']+)\1\)$/.exec(String(this.importer))?.[2];
    if (!spec) return this.importer();
    return import(new URL(spec, import.meta.url).href + "?retry=" + this.failures) as Promise<M>;
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
