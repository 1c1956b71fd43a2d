// Math spans as markdown-it tokens, recognised before markdown reads backslashes and emphasis: the inline rule runs
// ahead of markdown-it's `escape` rule (so `\(`, `\[`, `\,` and `\\` inside math reach KaTeX untouched) and the
// block rule ahead of paragraphs. Because they are tokenizer rules, code spans and fences keep their `$` as text.
// Delimiters: `$…$` and `\(…\)` inline, `$$…$$` and `\[…\]` displayed. The inline `$` rule is the one most
// writers expect (pandoc's): the opening `$` is not followed by a space, the closing `$` is not preceded by a space
// nor followed by a digit, so "$5 and $10" stays text. docs/app.md "Rendering" lists these rules.
import type MarkdownIt from "markdown-it";
import type StateBlock from "markdown-it/lib/rules_block/state_block.mjs";
import type StateInline from "markdown-it/lib/rules_inline/state_inline.mjs";

/** Longest math source rendered; a longer span stays text (bounds KaTeX's work on hostile input). */
export const MATH_MAX_CHARS = 4000;

const isSpace = (char: string | undefined) => char === undefined || /\s/.test(char);

/**
 * Index of the closing `$` of inline math opened at `start`, or -1. The next unescaped `$` decides: when it cannot
 * close (a space before it, a digit after it), the opener is text, so "$5 and $10, and $x$" has math only in "$x$".
 */
function closingDollar(src: string, start: number, max: number): number {
  if (isSpace(src[start + 1]) || src[start + 1] === "$") return -1;
  for (let at = start + 1; at < max; at++) {
    const char = src[at];
    if (char === "\\") at++;
    else if (char === "$") return !isSpace(src[at - 1]) && !/[0-9]/.test(src[at + 1] ?? "") ? at : -1;
  }
  return -1;
}

interface Delimited {
  open: string;
  close: string;
  display: boolean;
}

const DELIMITERS: Delimited[] = [
  { open: "$$", close: "$$", display: true },
  { open: "\\[", close: "\\]", display: true },
  { open: "\\(", close: "\\)", display: false },
];

function pushMath(state: StateInline, content: string, display: boolean, markup: string): void {
  const token = state.push(display ? "math_display" : "math_inline", "math", 0);
  token.content = content;
  token.markup = markup;
}

function mathInline(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  if (src[pos] !== "$" && src[pos] !== "\\") return false;
  for (const { open, close, display } of DELIMITERS) {
    if (!src.startsWith(open, pos)) continue;
    const end = src.indexOf(close, pos + open.length);
    if (end < 0 || end + close.length > posMax) return false;
    const content = src.slice(pos + open.length, end);
    if (content.trim() === "" || content.length > MATH_MAX_CHARS) return false;
    if (!silent) pushMath(state, content, display, open);
    state.pos = end + close.length;
    return true;
  }
  if (src[pos] !== "$") return false;
  const end = closingDollar(src, pos, posMax);
  if (end < 0 || end - pos - 1 > MATH_MAX_CHARS) return false;
  if (!silent) pushMath(state, src.slice(pos + 1, end), false, "$");
  state.pos = end + 1;
  return true;
}

/** A displayed block: a line starting with `$$` or `\[`, up to the line ending with the matching closer. */
function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const lineText = (line: number) => state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]);
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const first = lineText(startLine);
  const delimiter = DELIMITERS.find((candidate) => candidate.display && first.startsWith(candidate.open));
  if (!delimiter) return false;
  const parts: string[] = [];
  let rest = first.slice(delimiter.open.length);
  for (let line = startLine; line < endLine; line++) {
    if (line > startLine) rest = lineText(line);
    // A blank line or a line outdented out of the container ends the search: the block was not math.
    if (line > startLine && (state.isEmpty(line) || state.sCount[line]! < state.blkIndent)) return false;
    const trimmed = rest.trimEnd();
    if (trimmed.endsWith(delimiter.close) && (line > startLine || trimmed.length >= delimiter.close.length)) {
      parts.push(trimmed.slice(0, trimmed.length - delimiter.close.length));
      const content = parts.join("\n").trim();
      if (content.trim() === "" || content.length > MATH_MAX_CHARS || content.includes(delimiter.close)) return false;
      if (silent) return true;
      const token = state.push("math_block", "math", 0);
      token.block = true;
      token.content = content;
      token.markup = delimiter.open;
      token.map = [startLine, line + 1];
      state.line = line + 1;
      return true;
    }
    parts.push(rest);
  }
  return false;
}

/** Adds the math rules: tokens `math_inline`, `math_display` (inline-level `$$…$$`, `\[…\]`) and `math_block`. */
export function mathSyntax(markdown: MarkdownIt): void {
  markdown.inline.ruler.before("escape", "math_inline", mathInline);
  markdown.block.ruler.before("paragraph", "math_block", mathBlock, {
    alt: ["paragraph", "reference", "blockquote", "list"],
  });
}
