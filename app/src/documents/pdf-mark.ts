// The cited passage marked in a rendered PDF page's text layer (pdf-render.ts): the layer's spans hold the page's text
// in pieces (a line, or less where pdf.js split it), spaced as the page places them, not as the server's text has it.
// So the passage and the page are compared by their letters alone, whitespace left out, and each span the passage
// passes through gets its part of the passage in a <mark>.

interface Letter {
  span: number;
  at: number;
}

/** Marks `quote` in the text layer; the marks made, in order (none when the page does not hold the passage). */
export function markPassage(layer: HTMLElement, quote: string): HTMLElement[] {
  const spans = [...layer.querySelectorAll("span")].filter((span) => span.childElementCount === 0);
  const letters: Letter[] = [];
  let flat = "";
  spans.forEach((span, index) => {
    const text = span.textContent ?? "";
    for (let at = 0; at < text.length; at++) {
      if (/\s/.test(text[at]!)) continue;
      flat += text[at];
      letters.push({ span: index, at });
    }
  });
  const wanted = quote.replace(/\s+/g, "");
  if (wanted === "") return [];
  const start = flat.indexOf(wanted);
  if (start < 0) return [];
  const ranges = new Map<number, { from: number; to: number }>();
  for (const letter of letters.slice(start, start + wanted.length)) {
    const range = ranges.get(letter.span);
    if (range) range.to = letter.at + 1;
    else ranges.set(letter.span, { from: letter.at, to: letter.at + 1 });
  }
  return [...ranges].map(([index, range]) => markIn(spans[index]!, range.from, range.to));
}

function markIn(span: HTMLElement, from: number, to: number): HTMLElement {
  const text = span.textContent ?? "";
  const mark = document.createElement("mark");
  mark.textContent = text.slice(from, to);
  span.replaceChildren(text.slice(0, from), mark, text.slice(to));
  return mark;
}
