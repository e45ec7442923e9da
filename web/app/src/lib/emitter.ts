// A small change notifier: state objects name what changed ("sidebar", "view:<id>", ...) and
// components re-render only for the topics they read. Emits are batched to one per task, so a
// burst of events (a replay after a reconnect) renders once.

import { useLayoutEffect, useReducer } from "preact/hooks";

type Listener = () => void;

export class Emitter {
  private subs = new Map<string, Set<Listener>>();
  private queued = new Set<string>();
  private scheduled = false;

  on(topic: string, fn: Listener): () => void {
    let set = this.subs.get(topic);
    if (!set) this.subs.set(topic, (set = new Set()));
    set.add(fn);
    return () => {
      set!.delete(fn);
      if (set!.size === 0) this.subs.delete(topic);
    };
  }

  emit(...topics: string[]): void {
    for (const t of topics) this.queued.add(t);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const topics = [...this.queued];
    this.queued.clear();
    const fns = new Set<Listener>();
    for (const t of topics) this.subs.get(t)?.forEach((fn) => fns.add(fn));
    fns.forEach((fn) => fn());
  }
}

/**
 * Re-renders the calling component whenever one of topics is emitted. It listens from the
 * commit of its first render on (a layout effect): a plain effect runs a frame later, and a
 * change emitted in between (a call's answer that came quickly) was lost, leaving the component
 * showing the state it first rendered.
 */
export function useTopics(em: Emitter | undefined, ...topics: string[]): void {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  const key = topics.join("\n");
  useLayoutEffect(() => {
    if (!em) return;
    const offs = topics.map((t) => em.on(t, bump as () => void));
    return () => offs.forEach((off) => off());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [em, key]);
}
