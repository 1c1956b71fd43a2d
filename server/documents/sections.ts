// A document without pages cut into sections at its top headings (docs/documents.md "Reading"): `# ` and `## ` in
// Markdown (outside code fences), <h1> and <h2> in HTML and in the HTML mammoth makes of a DOCX. A section is the
// heading and the text up to the next one; text before the first heading is a section of its own. HTML is read with
// htmlparser2 as text only: scripts, styles and templates are dropped, nothing is ever run.
import { Parser } from "htmlparser2";
import type { Section } from "./extract-messages.ts";

const SKIPPED = new Set(["script", "style", "noscript", "template", "head"]);
const BLOCKS = new Set(["p", "div", "br", "li", "tr", "h3", "h4", "h5", "h6", "pre", "blockquote", "table", "section"]);
const TOP = new Set(["h1", "h2"]);

function numbered(parts: Array<{ heading?: string; text: string }>): Section[] {
  const kept = parts
    .map((part) => ({
      ...part,
      text: part.text
        .replace(/[ \t]+/g, " ")
        .replace(/\n{3,}/g, "\n\n")
        .trim(),
    }))
    .filter((part) => part.text !== "" || part.heading);
  return (kept.length > 0 ? kept : [{ text: "" }]).map((part, index) => ({ page: index + 1, ...part }));
}

export function sectionsOfHtml(html: string): Section[] {
  const parts: Array<{ heading?: string; text: string }> = [{ text: "" }];
  let skipping = 0;
  let inHeading = false;
  let heading = "";
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIPPED.has(name)) skipping++;
        else if (TOP.has(name) && skipping === 0) ((inHeading = true), (heading = ""));
        else if (BLOCKS.has(name)) parts.at(-1)!.text += "\n";
      },
      ontext(text) {
        if (skipping > 0) return;
        if (inHeading) heading += text;
        else parts.at(-1)!.text += text;
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1);
        else if (TOP.has(name) && inHeading) {
          inHeading = false;
          const title = heading.replace(/\s+/g, " ").trim();
          parts.push({ heading: title, text: `${title}\n` });
        } else if (BLOCKS.has(name)) parts.at(-1)!.text += "\n";
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return numbered(parts);
}

export function sectionsOfMarkdown(markdown: string): Section[] {
  const parts: Array<{ heading?: string; text: string }> = [{ text: "" }];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const top = !fenced && /^#{1,2}\s+\S/.exec(line);
    if (top) parts.push({ heading: line.replace(/^#{1,2}\s+/, "").trim(), text: "" });
    parts.at(-1)!.text += `${line}\n`;
  }
  return numbered(parts);
}
