// Group mentions (EXTENSIONS.md 3) as typed and as sent: a person types @here and @everyone,
// the wire has <!here> and <!everyone>. Only the text of someone who may use them is turned
// into the wire form: anyone else's @everyone stays the words they typed.

const TYPED = /(^|[^\w<@])@(here|everyone)\b/g;
const WIRE = /<!(here|everyone)>/g;

/** @here and @everyone as the server takes them. */
export function groupsToWire(text: string): string {
  return text.replace(TYPED, "$1<!$2>");
}

/** The wire form back to what a person types, for editing. */
export function groupsFromWire(text: string): string {
  return text.replace(WIRE, "@$1");
}
