// Text cut at a length in UTF-16 code units can end between the two halves of a surrogate pair (an emoji, a rare CJK
// character) and keep a lone half: not well-formed text, which the server refuses in a body (docs/server.md "Route
// contracts"), encodeURIComponent throws on, and UTF-8 stores as U+FFFD. Cuts of text that is sent or stored go
// through here.

/** A surrogate standing alone: under the `u` flag a well-formed pair is one code point, not matched. The one test of
 *  well-formed text, for the server's bodies (server/http/well-formed-text.ts) and a relayed path (relay-path.ts). */
export const LONE_SURROGATE = /\p{Cs}/u;

/** `at`, moved back by one when it falls between a pair's halves, so text cut there keeps whole characters. */
export function wholeEnd(text: string, at: number): number {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff ? at - 1 : at;
}

/** The first `max` code units of `text` or one fewer, never half a pair. */
export function headOf(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, wholeEnd(text, max));
}
