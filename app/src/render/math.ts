// KaTeX, loaded with its stylesheet and fonts only when a message has math (markdown.ts imports this module
// dynamically). trust stays off (no \href to javascript:, no \htmlClass, \htmlData, \includegraphics), sizes and
// macro expansion are bounded, errors render as the source in red instead of throwing. KaTeX's output is
// sanitized on its own here with the MathML and SVG it needs, so the rest of a message keeps the HTML-only rules.
import DOMPurify from "dompurify";
import katex from "katex";
import "katex/dist/katex.min.css";

const KATEX_OPTIONS = {
  throwOnError: false,
  trust: false,
  strict: "ignore",
  output: "htmlAndMathml",
  maxSize: 50,
  maxExpand: 500,
} as const;

const SANITIZE_MATH = {
  USE_PROFILES: { html: true, svg: true, mathMl: true },
  // KaTeX's MathML keeps the TeX source in <annotation> inside <semantics>; DOMPurify leaves both out by default.
  ADD_TAGS: ["semantics", "annotation"],
  ADD_ATTR: ["encoding"],
};

/** Safe HTML of one math span. */
export function renderMath(tex: string, display: boolean): string {
  const html = katex.renderToString(tex, { ...KATEX_OPTIONS, displayMode: display });
  const safe = DOMPurify.sanitize(html, SANITIZE_MATH);
  // tabindex: a wide formula scrolls sideways, and keyboard users must reach it to scroll it.
  return display ? `<div class="math-display" tabindex="0">${safe}</div>` : safe;
}
