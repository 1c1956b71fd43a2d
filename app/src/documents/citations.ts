// A reply's citations (`metadata.citations`, docs/documents.md "Into the conversation"), read with zod since metadata is
// free-form, and the reply's text with each cited `[n]` turned into a markdown link to `#cite-n` (the message's click
// handler opens the viewer; the link never navigates). Numbers no citation explains stay plain text; code spans and
// fences are left alone.
import { z } from "zod";

const citationSchema = z.object({
  n: z.number().int().min(1).max(1000),
  document_id: z.string().min(1).max(100),
  name: z.string().max(500),
  page: z.number().int().min(1),
  quote: z.string().max(5000),
});
export type Citation = z.infer<typeof citationSchema>;

/** The valid citations of a message's metadata (at most 100; anything malformed is left out). */
export function citationsOf(metadata: Record<string, unknown> | undefined): Citation[] {
  const raw = metadata?.citations;
  if (!Array.isArray(raw)) return [];
  return raw.slice(0, 100).flatMap((entry) => {
    const parsed = citationSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

export const CITE_HREF_PREFIX = "#cite-";

/** The markdown with each cited `[n]` a link (`[[n]](#cite-n "name, page p")`), outside code. */
export function linkCitations(text: string, citations: readonly Citation[]): string {
  if (citations.length === 0) return text;
  const byNumber = new Map(citations.map((citation) => [citation.n, citation]));
  // Split off fenced blocks and inline code spans (odd indices), rewrite only the prose between them.
  return text
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/)
    .map((part, index) => (index % 2 === 1 ? part : linkPart(part, byNumber)))
    .join("");
}

function linkPart(prose: string, byNumber: Map<number, Citation>): string {
  return prose.replace(/\[(\d{1,4})\](?!\()/g, (whole, digits: string) => {
    const citation = byNumber.get(Number(digits));
    if (!citation) return whole;
    const title = `${citation.name}, page ${citation.page}`.replace(/["\\]/g, "").replace(/\s+/g, " ");
    // Balanced brackets are link text in CommonMark; escaped ones (`\[1\]`) would read as display math here.
    return `[[${digits}]](${CITE_HREF_PREFIX}${digits} "${title}")`;
  });
}

/** The citation a click landed on (a link made by linkCitations), or undefined. */
export function citationAt(target: EventTarget | null, citations: readonly Citation[]): Citation | undefined {
  const link = (target as Element | null)?.closest?.(`a[href^="${CITE_HREF_PREFIX}"]`);
  const n = Number(link?.getAttribute("href")?.slice(CITE_HREF_PREFIX.length));
  return citations.find((citation) => citation.n === n);
}

/** Where the quote sits in the page's text: whitespace may differ, so it is matched with any run of spaces. */
export function findQuote(text: string, quote: string): { start: number; end: number } | undefined {
  const words = quote.trim().split(/\s+/).slice(0, 200);
  if (words.length === 0 || words[0] === "") return undefined;
  const pattern = new RegExp(words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+"));
  const found = pattern.exec(text);
  return found ? { start: found.index, end: found.index + found[0].length } : undefined;
}
