// A small change notifier: state objects name what changed (a Topic of state/topics.ts, or a
// draft's) and components re-render only for the topics they read. Emits are batched to one per
// task, so a burst of events (a replay after a reconnect) renders once.

import { useLayoutEffect, useReducer } from "preact/hooks";

type Listener = () => void;

/** What can be listened to: the part of an Emitter that components get (they never emit). */
export interface Topics<T extends string> {
  on(topic: T, fn: Listener): () => void;
}

export class Emitter<T extends string> implements Topics<T> {
  private subs = new Map<T, Set<Listener>>();
  private queued = new Set<T>();
  private scheduled = false;

  on(topic: T, fn: Listener): () => void {
    let set = this.subs.get(topic);
    if (!set) this.subs.set(topic, (set = new Set()));
    set.add(fn);
    return () => {
      set!.delete(fn);
      if (set!.size === 0) this.subs.delete(topic);
    };
  }

  emit(...topics: T[]): void {
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
export function useTopics<T extends string>(em: Topics<T> | undefined, ...topics: T[]): void {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  const key = topics.join("\n");
  useLayoutEffect(() => {
    if (!em) return;
    const offs = topics.map((t) => em.on(t, bump as () => void));
    return () => offs.forEach((off) => off());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [em, key]);
}
