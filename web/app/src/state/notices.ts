// What the person is told: errors (what they asked for did not happen) and passing info, shown
// by ui/common.tsx's Notices.

export type NoticeKind = "error" | "info";

/** Something the person is told; count is how many times in a row it happened. */
export type Notice = { id: number; kind: NoticeKind; text: string; count: number };

/** The most notices shown at once, and how long info shows. */
export const NOTICES_SHOWN = 3;
export const INFO_MS = 6000;

/** The notices on screen, oldest first; changed is called after every change of the list. */
export class NoticeBoard {
  list: Notice[] = [];
  private ids = 0;

  constructor(private readonly changed: () => void) {}

  /**
   * An error stays until the person dismisses it: they may have looked away. Info goes by
   * itself after INFO_MS. The same notice again replaces the one shown, counted ("2 times") and
   * newest; at most NOTICES_SHOWN show, the oldest info making room first, then the oldest error.
   */
  tell(text: string, kind: NoticeKind): void {
    const same = this.list.find((n) => n.kind === kind && n.text === text);
    const notice: Notice = { id: ++this.ids, kind, text, count: (same?.count ?? 0) + 1 };
    const list = this.list.filter((n) => n !== same);
    list.push(notice);
    while (list.length > NOTICES_SHOWN) {
      const info = list.findIndex((n) => n.kind === "info");
      list.splice(info >= 0 ? info : 0, 1);
    }
    this.list = list;
    if (kind === "info") window.setTimeout(() => this.dismiss(notice.id), INFO_MS);
    this.changed();
  }

  /** Takes a notice away (nothing when it has gone already). */
  dismiss(id: number): void {
    if (!this.list.some((n) => n.id === id)) return;
    this.list = this.list.filter((n) => n.id !== id);
    this.changed();
  }
}
