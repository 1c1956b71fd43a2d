// The markdown of a plain message, read without the renderer: paragraphs of plain words and tight lists of plain
// items ("- item"), nothing else. A fast scroll mounts rows as sketches (message-sketch.tsx); a sketch laid out as the
// renderer lays out its message is as tall as the full row that replaces it, so completing it once the page is still
// moves nothing on the screen (docs/app.md "Long chats", LC10). Most messages of a chat are such text.
// What counts as plain is deliberately narrow: any character markdown-it (as markdown.ts configures it: line breaks
// kept, links found in text, math, task lists) could read as syntax refuses the fast path, and the sketch shows the
// text as written instead. test/app-render/syntax.test.ts checks the blocks against markdown-it's own output.

export type PlainBlock = { kind: "paragraph"; lines: string[] } | { kind: "list"; items: string[] };

/** Letters, digits, spaces and the punctuation no markdown rule reads: no `*_[]<>&\\$~|#+=@/{}^` and no backtick. */
const PLAIN_TEXT = /^[\p{L}\p{N} ,.;:!?'"()-]+$/u;
/** Plain characters that still make a link found in text: a dot within a word, a scheme, a local host name. */
const LINK_LIKE = /\.\S|(?:https?|ftp|mailto):|localhost/i;
/** A line markdown reads as a block of its own: a list item (bullet or numbered), a rule, a heading's underline. */
const BLOCK_START = /^(?:-|\d+[.)])/;

/** A line of a paragraph, or an item's text, that markdown renders as written (no leading/trailing space either). */
function plainLine(line: string): boolean {
  return PLAIN_TEXT.test(line) && line.trim() === line && !LINK_LIKE.test(line) && !BLOCK_START.test(line);
}

/** A block of lines (no blank one among them): a paragraph, a tight list, or undefined if it is anything else. */
function blockOf(lines: string[]): PlainBlock | undefined {
  if (lines[0]!.startsWith("- ")) {
    const items = lines.map((line) => (line.startsWith("- ") ? line.slice(2) : ""));
    return items.every(plainLine) ? { kind: "list", items } : undefined;
  }
  return lines.every(plainLine) ? { kind: "paragraph", lines } : undefined;
}

/**
 * The blocks markdown-it makes of `text` when it is plain (paragraphs and tight lists of plain words); undefined for
 * anything else, or for no block at all.
 */
export function plainMarkdown(text: string): PlainBlock[] | undefined {
  const blocks: PlainBlock[] = [];
  for (const chunk of text.split(/\n{2,}/)) {
    const lines = chunk.split("\n").filter((line, at, all) => line !== "" || (at !== 0 && at !== all.length - 1));
    if (lines.length === 0) continue;
    const block = blockOf(lines);
    // Two lists apart by a blank line are one loose list (its items in paragraphs): not a plain one.
    if (block === undefined || (block.kind === "list" && blocks.at(-1)?.kind === "list")) return undefined;
    blocks.push(block);
  }
  return blocks.length > 0 ? blocks : undefined;
}
