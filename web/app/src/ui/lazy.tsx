// The screens away from the chat (the community's pages, moderation, bots and plugins, custom
// emoji, the search, the poll form, the profile, the lightbox...), each a chunk of its own loaded
// the first time it shows (lib/lazy.ts), so that the person downloads and parses only what the
// chat needs before they can chat. The screen's module is imported for its types alone; its
// code comes through lazyView:
//
//   import type { ProfileProps } from "./Profile";
//   const Profile = lazyView("your profile", () => import("./Profile"), (m) => m.Profile, "dialog");
//
// The build (build/main.go, start_test.go) fails if one of them is pulled back into the start.

import type { ComponentType, FunctionComponent } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { Lazy } from "../lib/lazy";
import "./lazy.css";

/** A component loaded on first render; chunk is its loader (chunk.prefetch(), chunk.load()). */
export type LazyView<P> = FunctionComponent<P> & { chunk: Pick<Lazy<unknown, ComponentType<P>>, "load" | "prefetch"> };

/**
 * The component pick finds in the module importer brings (`() => import("./Profile")`, exactly:
 * lib/lazy.ts), in place of the component. what names it for the person ("the moderation
 * screen"). Until it is there:
 *
 *   - "part", a part of a page or of a dialog: a "Loading…" line in its place (shown only if
 *     the wait is long enough to see), and if the chunk cannot be loaded, that it could not and
 *     a Try again button;
 *   - "dialog", a dialog of its own (it takes the focus when it opens and gives it back to
 *     what opened it when it closes): nothing in the page, so that the focus stays where it
 *     is, but a "Loading…" in a corner if the wait is long; a failure is told in that corner,
 *     with Try again and Close (the dialog's onClose).
 */
export function lazyView<M, P extends object>(what: string, importer: () => Promise<M>, pick: (m: M) => ComponentType<P>, shape: "part" | "dialog" = "part"): LazyView<P> {
  const chunk = new Lazy(importer, pick);
  const View = (props: P) => {
    // What had the focus when the view was asked for: a dialog gives it back there when it
    // closes, so a retry puts it back there before the dialog opens.
    const [opener] = useState(() => (document.activeElement instanceof HTMLElement ? document.activeElement : null));
    const Loaded = chunk.use();
    // A part that came after its dialog opened: the control it asks to have the focus
    // (autofocus) gets it as it would have from the dialog, unless the person went elsewhere.
    const waitedIn = useRef<HTMLElement | null>(null);
    useLayoutEffect(() => {
      const where = waitedIn.current;
      if (!Loaded || !where) return;
      waitedIn.current = null;
      const active = document.activeElement;
      if (active && active !== document.body && !(where.closest("dialog") ?? where).contains(active)) return;
      where.querySelector<HTMLElement>("[autofocus]")?.focus();
    }, [Loaded]);
    if (Loaded) return <Loaded {...props} />;
    const float = shape === "dialog" ? " lazy-float" : "";
    if (chunk.error === undefined) {
      return (
        <p class={"lazy-wait" + float} role="status" ref={(el) => void (el && shape === "part" && (waitedIn.current = el.parentElement))}>
          Loading…
        </p>
      );
    }
    const retry = () => {
      if (shape === "dialog" && opener?.isConnected) opener.focus({ preventScroll: true });
      chunk.load().catch(() => {});
    };
    const onClose = shape === "dialog" ? (props as { onClose?: () => void }).onClose : undefined;
    return (
      <div class={"lazy-failed" + float} role="alert">
        <span>Could not load {what}: check the connection.</span>
        <button type="button" class="button" onClick={retry}>
          Try again
        </button>
        {onClose && (
          <button type="button" class="icon-button" aria-label="Close" onClick={onClose}>
            ✕
          </button>
        )}
      </div>
    );
  };
  View.displayName = "Lazy";
  return Object.assign(View, { chunk });
}
