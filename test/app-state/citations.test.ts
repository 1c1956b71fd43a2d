// A reply's citations in the app (docs/documents.md "In the app", DA7): read from free-form metadata with zod, turned
// into links only for the numbers they explain and never inside code, and the quote found in the page's text
// whatever its line breaks.
import { describe, expect, it } from "vitest";
import { citationAt, citationsOf, findQuote, linkCitations } from "../../app/src/documents/citations.ts";

const LEASE = { n: 1, document_id: "doc_1", name: 'lease "final"\n.pdf', page: 2, quote: "Clause 7: the tenant pays" };

describe("citations in the app (DA7)", () => {
  it("keeps the well-formed citations of a message's metadata and drops the rest", () => {
    const metadata = { citations: [LEASE, { n: "2" }, { ...LEASE, n: 0 }, null, { ...LEASE, n: 3, page: -1 }] };
    expect(citationsOf(metadata)).toEqual([LEASE]);
    expect(citationsOf({ citations: "lots" })).toEqual([]);
    expect(citationsOf(undefined)).toEqual([]);
  });

  it("links the cited numbers only, outside inline code and fences, and leaves markdown links alone", () => {
    const text = "Due on the first [1], see [9]. `a[1]` and [1](https://x.test)\n```\nlist[1]\n```\nAgain [1].";
    const linked = linkCitations(text, [LEASE]);
    expect(linked).toBe(
      'Due on the first [[1]](#cite-1 "lease final .pdf, page 2"), see [9]. `a[1]` and [1](https://x.test)\n```\nlist[1]\n```\nAgain [[1]](#cite-1 "lease final .pdf, page 2").',
    );
    expect(linkCitations(text, [])).toBe(text);
  });

  it("finds the citation a click landed on from its link", () => {
    const link = { closest: () => ({ getAttribute: () => "#cite-1" }) } as unknown as EventTarget;
    expect(citationAt(link, [LEASE])).toEqual(LEASE);
    expect(citationAt({ closest: () => null } as unknown as EventTarget, [LEASE])).toBeUndefined();
    expect(citationAt(null, [LEASE])).toBeUndefined();
  });

  it("finds the quote across other whitespace, and says so when it is not there", () => {
    const page = "Lease.\nClause 7:  the\ntenant pays the rent (in euros).";
    expect(findQuote(page, "Clause 7: the tenant pays")).toEqual({ start: 7, end: 33 });
    expect(findQuote(page, "the rent (in euros).")).toEqual({ start: 34, end: 54 });
    expect(findQuote(page, "Clause 8")).toBeUndefined();
    expect(findQuote(page, "   ")).toBeUndefined();
  });
});
