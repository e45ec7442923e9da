// What markdown-it gets in place of the "entities" package (build/main.go and the unit tests'
// bundle alias it here). Character references are not decoded: &copy; shows as it was typed, as
// in Discord and Slack, where what a person types is what shows (lib/markdown turns the
// parser's entity rule off, so &#169; stays too). The package's table of HTML's 2,000 names is
// 16 KB gzipped, a sixth of the client, for a thing nobody means to write in a chat.

/** markdown-it's decoder of a named reference: the reference, unchanged (not a known name). */
export function decodeHTMLStrict(reference: string): string {
  return reference;
}
