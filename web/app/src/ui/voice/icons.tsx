// The voice screens' icons: line drawings on a 24-unit grid, in the text's colour.

import type { JSX } from "preact";

// Functions, so that each icon drawn is its own tree of elements.
const shapes = {
  speaker: () => (
    <>
      <path d="M4 9h4l5-4v14l-5-4H4z" />
      <path d="M16.5 8.5a5 5 0 0 1 0 7M19 6a8.5 8.5 0 0 1 0 12" />
    </>
  ),
  mic: () => (
    <>
      <rect x="9" y="3" width="6" height="11" rx="3" />
      <path d="M5.5 11a6.5 6.5 0 0 0 13 0M12 17.5V21" />
    </>
  ),
  micOff: () => (
    <>
      <rect x="9" y="3" width="6" height="11" rx="3" />
      <path d="M5.5 11a6.5 6.5 0 0 0 13 0M12 17.5V21M4 4l16 16" />
    </>
  ),
  headphones: () => (
    <>
      <path d="M4 16v-4a8 8 0 0 1 16 0v4" />
      <rect x="3" y="14" width="4.5" height="6.5" rx="1.5" />
      <rect x="16.5" y="14" width="4.5" height="6.5" rx="1.5" />
    </>
  ),
  headphonesOff: () => (
    <>
      <path d="M4 16v-4a8 8 0 0 1 16 0v4" />
      <rect x="3" y="14" width="4.5" height="6.5" rx="1.5" />
      <rect x="16.5" y="14" width="4.5" height="6.5" rx="1.5" />
      <path d="M3 3l18 18" />
    </>
  ),
  screen: () => (
    <>
      <rect x="3" y="4" width="18" height="12" rx="2" />
      <path d="M8.5 20h7M12 16v4" />
    </>
  ),
  screenOff: () => (
    <>
      <rect x="3" y="4" width="18" height="12" rx="2" />
      <path d="M8.5 20h7M12 16v4M9 7.5l6 5M15 7.5l-6 5" />
    </>
  ),
  leave: () => <path d="M3.5 14.5c0-3 3.8-5.5 8.5-5.5s8.5 2.5 8.5 5.5l-.7 1.8a1 1 0 0 1-1.2.6l-2.9-.8a1 1 0 0 1-.7-1v-1.8a11 11 0 0 0-6 0v1.8a1 1 0 0 1-.7 1l-2.9.8a1 1 0 0 1-1.2-.6z" />,
  expand: () => <path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5" />,
  settings: () => (
    <>
      <path d="M4 6h9M17 6h3M4 12h3M11 12h9M4 18h11M19 18h1" />
      <circle cx="15" cy="6" r="2" />
      <circle cx="9" cy="12" r="2" />
      <circle cx="17" cy="18" r="2" />
    </>
  ),
};

export type IconName = keyof typeof shapes;

/** An icon; label names it for screen readers (none: it is decoration, named by its button). */
export function Icon(props: { name: IconName; label?: string; size?: number }): JSX.Element {
  const size = props.size ?? 20;
  return (
    <svg
      class={"voice-icon icon-" + props.name}
      viewBox="0 0 24 24"
      width={size}
      height={size}
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
      role={props.label ? "img" : undefined}
      aria-label={props.label}
      aria-hidden={props.label ? undefined : "true"}
    >
      {shapes[props.name]()}
    </svg>
  );
}
