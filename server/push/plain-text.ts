// A reply's Markdown as the plain words a notification shows (docs/push.md "Payload"): a push preview is read on a
// lock screen, where "**Done**" or a fence's backticks are noise. markdown-it (the app's renderer too) parses it; only
// the text, inline code and code blocks are kept, blocks joined by a space.
import MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";

const parser = new MarkdownIt({ html: false, linkify: false });

/** Parsing reads at most this many characters: a preview keeps far fewer, and a huge reply costs no more. */
const MAX_SOURCE_CHARS = 8_000;

export function markdownToPlainText(markdown: string): string {
  const parts: string[] = [];
  for (const token of parser.parse(markdown.slice(0, MAX_SOURCE_CHARS), {})) {
    if (token.type === "inline") parts.push(inlineText(token.children ?? []));
    else if (token.type === "fence" || token.type === "code_block") parts.push(token.content);
    parts.push(" ");
  }
  return parts.join("");
}

function inlineText(children: Token[]): string {
  return children
    .map((child) => {
      if (child.type === "text" || child.type === "code_inline") return child.content;
      if (child.type === "softbreak" || child.type === "hardbreak") return " ";
      if (child.type === "image") return child.content;
      return "";
    })
    .join("");
}
