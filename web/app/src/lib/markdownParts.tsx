// The parts of a rendered message that do something (lib/markdown renders the rest): a spoiler
// that shows what it hides when clicked, a code block highlighted once the highlighter has
// loaded and with a button that copies the code, a standard emoji shortcode (:tada:) shown as
// its emoji once the table has loaded. Each shows its text as written until then.

import type { ComponentChildren } from "preact";
import { useMemo, useState } from "preact/hooks";
import type { Token } from "./highlighter";
import { copyText } from "./clipboard";
import { Lazy } from "./lazy";
import { shortcodes } from "./shortcodes";
import "./markdown.css";

/** Discord's ||spoiler||: hidden (its links and mentions out of reach too) until clicked. */
export function Spoiler(props: { children: ComponentChildren }) {
  const [shown, setShown] = useState(false);
  if (shown) return <span class="spoiler spoiler-shown">{props.children}</span>;
  const show = (e: Event) => {
    // Inside a link, the click shows the spoiler; the next one follows the link.
    e.preventDefault();
    e.stopPropagation();
    setShown(true);
  };
  return (
    <span
      class="spoiler"
      role="button"
      tabIndex={0}
      aria-label="Spoiler, select to show"
      title="Spoiler: click to show"
      onClick={show}
      onKeyDown={(e) => {
        if (e.key === "Enter" || e.key === " ") show(e);
      }}
    >
      <span class="spoiler-content" inert aria-hidden="true">
        {props.children}
      </span>
    </span>
  );
}

/** The code highlighter (lib/highlighter.ts), loaded with the first code block that names a language. */
export const highlighter = new Lazy(() => import("./highlighter"));

/** A fenced code block: highlighted when its language (```js) is one the highlighter knows. */
export function CodeBlock(props: { code: string; lang: string }) {
  const { code, lang } = props;
  const hl = highlighter.use(lang !== "");
  const tokens = useMemo(() => (hl && lang ? hl.highlight(code, lang) : undefined), [hl, code, lang]);
  return (
    <div class="code-wrap">
      <pre class="code-block">
        <code class={tokens ? "hl" : undefined} data-lang={lang || undefined}>
          {tokens ? tokens.map(scoped) : code}
        </code>
      </pre>
      <CopyButton text={code} />
    </div>
  );
}

/** A highlighted piece as elements: each scope a span with its classes (hl-keyword, hl-title...). */
function scoped(t: Token): ComponentChildren {
  if (typeof t === "string") return t;
  // "title.function" is hl-title hl-title-function; a language within another has no class.
  const parts = t.scope.startsWith("language:") || !t.scope ? [] : t.scope.split(".");
  const cls = parts.map((_, i) => "hl-" + parts.slice(0, i + 1).join("-")).join(" ");
  return cls ? <span class={cls}>{t.children.map(scoped)}</span> : t.children.map(scoped);
}

function CopyButton(props: { text: string }) {
  const [copied, setCopied] = useState<"" | "Copied" | "Copy failed">("");
  const copy = async () => {
    const ok = await copyText(props.text);
    setCopied(ok ? "Copied" : "Copy failed");
    setTimeout(() => setCopied(""), 2000);
  };
  return (
    <button type="button" class="code-copy" aria-label={copied || "Copy code"} title="Copy code" onClick={() => void copy()}>
      {copied || "Copy"}
    </button>
  );
}

/** A standard emoji by shortcode (:tada:): the emoji once the table is here, else as written. */
export function StandardEmoji(props: { name: string; raw: string }) {
  const table = shortcodes.use();
  const char = table?.get(props.name);
  if (!char) return <>{props.raw}</>;
  return (
    <span class="emoji" role="img" aria-label={props.raw} title={props.raw}>
      {char}
    </span>
  );
}
