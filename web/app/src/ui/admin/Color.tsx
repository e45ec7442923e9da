// Choosing a colour (a role's, the community's accent): a few swatches, one of one's own, or
// none. The value is `#rrggbb` or empty, as the API takes it.

import { useId } from "preact/hooks";

const SWATCHES: [string, string][] = [
  ["#c2410c", "orange"],
  ["#b91c1c", "red"],
  ["#be185d", "pink"],
  ["#7c3aed", "violet"],
  ["#1d4ed8", "blue"],
  ["#0e7490", "teal"],
  ["#15803d", "green"],
  ["#a16207", "amber"],
  ["#57534e", "stone"],
];

export function ColorField(props: { label: string; value: string; onChange: (v: string) => void }) {
  const name = useId();
  const custom = props.value !== "" && !SWATCHES.some(([c]) => c === props.value.toLowerCase());
  return (
    <fieldset class="color-field">
      <legend>{props.label}</legend>
      <div class="swatches">
        <label class="swatch swatch-none" title="No colour">
          <input type="radio" name={name} checked={props.value === ""} onChange={() => props.onChange("")} aria-label="No colour" />
          <span aria-hidden="true">∅</span>
        </label>
        {SWATCHES.map(([c, label]) => (
          <label key={c} class="swatch" title={label}>
            <input type="radio" name={name} checked={props.value.toLowerCase() === c} onChange={() => props.onChange(c)} aria-label={label} />
            <span aria-hidden="true" style={{ background: c }} />
          </label>
        ))}
        <label class={custom ? "swatch swatch-custom checked" : "swatch swatch-custom"} title="Another colour">
          <input type="color" value={props.value || "#888888"} aria-label="Another colour" onInput={(e) => props.onChange(e.currentTarget.value)} />
        </label>
      </div>
    </fieldset>
  );
}
