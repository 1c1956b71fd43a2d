// Markdown to safe HTML: markdown-it parses (raw HTML off, so a reply's <script> or <img onerror> is text), and
// DOMPurify sanitizes what markdown-it produced as a second wall (links, attributes). Links open in a new tab
// without an opener. Code fences get a header with the language and a copy button; highlighting is applied
// later, lazily (highlight.ts), so the first load carries no highlighter.
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true });

// A long line scrolls the <pre> sideways: tabindex lets keyboard users reach and scroll it (axe scrollable-region-focusable).
markdown.renderer.rules.fence = (tokens, index) => {
  const token = tokens[index]!;
  const language = token.info.trim().split(/\s+/, 1)[0] ?? "";
  const escaped = markdown.utils.escapeHtml(token.content);
  const label = markdown.utils.escapeHtml(language || "text");
  const languageClass = language ? ` class="language-${markdown.utils.escapeHtml(language)}"` : "";
  return `<div class="code-block"><div class="code-head"><span>${label}</span><button type="button" class="copy-code" aria-label="Copy code">Copy</button></div><pre tabindex="0"><code${languageClass}>${escaped}</code></pre></div>`;
};

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

/** Rendered messages by text: the virtualized list mounts a row again each time it scrolls back into view. */
const rendered = new Map<string, string>();
const CACHE_ENTRIES = 400;

/** Safe HTML for a message's markdown. */
export function renderMarkdown(text: string): string {
  const cached = rendered.get(text);
  if (cached !== undefined) return cached;
  const html = DOMPurify.sanitize(markdown.render(text), { USE_PROFILES: { html: true }, ADD_ATTR: ["target"] });
  if (rendered.size >= CACHE_ENTRIES) rendered.delete(rendered.keys().next().value!);
  rendered.set(text, html);
  return html;
}
