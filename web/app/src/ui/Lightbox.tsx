// A message's pictures shown large, one at a time, over the page: ‹ and › (the Left and Right
// keys, a swipe on a touch screen) move through them, Escape, ✕ or a click beside the picture
// closes. A modal <dialog>: the focus stays in it, and goes back to the picture that opened it.

import { useEffect, useRef, useState } from "preact/hooks";
import "./rich.css";

export type LightboxImage = { url: string; name: string; width: number; height: number };

export function Lightbox(props: { images: LightboxImage[]; start: number; onClose: () => void }) {
  const { images } = props;
  const [index, setIndex] = useState(Math.min(Math.max(props.start, 0), images.length - 1));
  const ref = useRef<HTMLDialogElement>(null);
  const touch = useRef<{ x: number; y: number } | null>(null);
  const image = images[index];
  const many = images.length > 1;
  const move = (d: number) => setIndex((i) => (i + d + images.length) % images.length);

  useEffect(() => {
    const d = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (d && !d.open) d.showModal();
    d?.querySelector<HTMLElement>(".lightbox-close")?.focus();
    return () => {
      // After the dialog has gone (Escape gives the focus back by itself; ✕ and a click beside
      // the picture end with the dialog taken out of the page, the focus nowhere).
      setTimeout(() => {
        if (!opener?.isConnected || (document.activeElement && document.activeElement !== document.body)) return;
        // The message first: its controls show only while it has the focus.
        opener.closest<HTMLElement>("[tabindex='-1']")?.focus({ preventScroll: true });
        opener.focus({ preventScroll: true });
      });
    };
  }, []);

  if (!image) return null;
  const close = () => ref.current?.close();
  const label = many ? `${image.name} (${index + 1} of ${images.length})` : image.name;
  return (
    <dialog
      ref={ref}
      class="lightbox"
      aria-label={label}
      onClose={props.onClose}
      onKeyDown={(e) => {
        if (!many || (e.key !== "ArrowLeft" && e.key !== "ArrowRight")) return;
        e.preventDefault();
        move(e.key === "ArrowLeft" ? -1 : 1);
      }}
      onClick={(e) => {
        // Beside the picture (the dialog's own ground, or the stage around the picture).
        const t = e.target as HTMLElement;
        if (t === ref.current || t.classList.contains("lightbox-stage")) close();
      }}
      onTouchStart={(e) => {
        const p = e.touches[0];
        touch.current = e.touches.length === 1 && p ? { x: p.clientX, y: p.clientY } : null;
      }}
      onTouchEnd={(e) => {
        const start = touch.current;
        const p = e.changedTouches[0];
        touch.current = null;
        if (!many || !start || !p) return;
        const dx = p.clientX - start.x;
        // A sideways swipe of 50 pixels or more, more sideways than up or down.
        if (Math.abs(dx) >= 50 && Math.abs(dx) > Math.abs(p.clientY - start.y)) move(dx < 0 ? 1 : -1);
      }}
    >
      <div class="lightbox-bar">
        <span class="lightbox-name" title={image.name}>
          {image.name}
        </span>
        {many && (
          <span class="lightbox-count">
            {index + 1} / {images.length}
          </span>
        )}
        <a class="lightbox-open" href={image.url} target="_blank" rel="noopener noreferrer">
          Open original
        </a>
        <button type="button" class="lightbox-close" aria-label="Close" title="Close (Escape)" onClick={close}>
          ✕
        </button>
      </div>
      <div class="lightbox-stage">
        <img key={image.url} class="lightbox-img" src={image.url} alt={image.name} width={image.width} height={image.height} decoding="async" />
      </div>
      {many && (
        <>
          <button type="button" class="lightbox-nav lightbox-prev" aria-label="Previous picture" title="Previous (Left arrow)" onClick={() => move(-1)}>
            ‹
          </button>
          <button type="button" class="lightbox-nav lightbox-next" aria-label="Next picture" title="Next (Right arrow)" onClick={() => move(1)}>
            ›
          </button>
        </>
      )}
    </dialog>
  );
}
