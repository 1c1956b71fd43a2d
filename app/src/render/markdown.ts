// Markdown to safe HTML (a chunk of its own, renderer-chunk.ts: loaded when the app is first idle or on first need, so
// the first paint carries none of it): markdown-it parses (raw HTML off, so a reply's <script> or <img onerror> is
// text), and DOMPurify sanitizes what markdown-it produced as a second wall (links, attributes). Links open in a new
// tab without an opener. Code fences get a header with the language and a copy button; highlighting is applied later,
// lazily (highlight.ts). Math spans become slots, filled after sanitizing with KaTeX's output (sanitized on its own by
// math.ts, with the MathML/SVG it needs) once KaTeX is loaded, and with their source text until then.
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import { mathSyntax } from "./math-syntax.ts";
import { isPlainHtml } from "./plain-html.ts";
import { taskListSyntax } from "./task-lists.ts";

type MathModule = typeof import("./math.ts");

let math: MathModule | undefined;
let mathLoading: Promise<void> | undefined;

/** Loads KaTeX once; a failed load (offline, never cached) is tried again by the next message that needs it. */
function loadMath(): Promise<void> {
  mathLoading ??= import("./math.ts").then(
    (module) => {
      math = module;
      rendered.clear();
      cachedChars = 0;
    },
    (error: unknown) => {
      mathLoading = undefined;
      throw error;
    },
  );
  return mathLoading;
}

interface RenderEnv {
  nonce: string;
  slots: Array<{ tex: string; display: boolean; markup: string }>;
}

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true });

// A long line scrolls the <pre> sideways: tabindex lets keyboard users reach and scroll it
// (axe scrollable-region-focusable).
markdown.renderer.rules.fence = (tokens, index) => {
  const token = tokens[index]!;
  const language = token.info.trim().split(/\s+/, 1)[0] ?? "";
  const escaped = markdown.utils.escapeHtml(token.content);
  const label = markdown.utils.escapeHtml(language || "text");
  const languageClass = language ? ` class="language-${markdown.utils.escapeHtml(language)}"` : "";
  return `<div class="code-block"><div class="code-head"><span>${label}</span><button type="button" class="copy-code" aria-label="Copy code">Copy</button></div><pre tabindex="0"><code${languageClass}>${escaped}</code></pre></div>`;
};

mathSyntax(markdown);
// A math token becomes an empty slot named by the render's nonce; fillSlots puts KaTeX's output there.
for (const type of ["math_inline", "math_display", "math_block"] as const) {
  markdown.renderer.rules[type] = (tokens, index, _options, env: RenderEnv) => {
    const token = tokens[index]!;
    const display = type !== "math_inline";
    env.slots.push({ tex: token.content, display, markup: token.markup });
    const tag = type === "math_block" ? "div" : "span";
    return `<${tag} data-math-slot="${env.nonce}-${env.slots.length - 1}"></${tag}>`;
  };
}
taskListSyntax(markdown);

// An instance of DOMPurify of the renderer's own, its rules set once: a config passed with each call is parsed again
// on each call, a third of sanitizing a short message. (math.ts sanitizes KaTeX's output with the shared instance.)
const purify = DOMPurify(window);
purify.setConfig({ USE_PROFILES: { html: true }, ADD_ATTR: ["target"] });
purify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

const CLOSERS: Record<string, string> = { "$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]" };

/** The math span as written, for while KaTeX loads (or when it cannot be loaded). */
function sourceOf(slot: RenderEnv["slots"][number]): string {
  const written = `${slot.markup}${slot.tex}${CLOSERS[slot.markup] ?? slot.markup}`;
  const tag = slot.display ? "div" : "span";
  return `<${tag} class="math-source${slot.display ? " display" : ""}">${markdown.utils.escapeHtml(written)}</${tag}>`;
}

function fillSlots(html: string, env: RenderEnv): string {
  if (env.slots.length === 0) return html;
  const slot = new RegExp(`<(span|div) data-math-slot="${env.nonce}-(\\d+)"></\\1>`, "g");
  return html.replace(slot, (_whole, _tag, index: string) => {
    const found = env.slots[Number(index)]!;
    return math ? math.renderMath(found.tex, found.display) : sourceOf(found);
  });
}

export interface Rendered {
  html: string;
  /** Set when the text has math and KaTeX is not loaded yet: true once it is (render again), false if it failed. */
  mathPending?: Promise<boolean>;
}

/**
 * Rendered messages by text, least recently used first out: the virtualized list mounts a row again each time it
 * scrolls back into view, and a row found here costs no rendering. Bounded by entries and by the HTML's length.
 */
const rendered = new Map<string, Rendered>();
const CACHE_ENTRIES = 1000;
const CACHE_CHARS = 4_000_000;
let cachedChars = 0;

/** The message's rendering if it is cached (then it is the most recently used). */
export function cachedMarkdown(text: string): Rendered | undefined {
  const found = rendered.get(text);
  if (found === undefined) return undefined;
  rendered.delete(text);
  rendered.set(text, found);
  return found;
}

function remember(text: string, result: Rendered): void {
  if (result.html.length > CACHE_CHARS / 10) return;
  rendered.set(text, result);
  cachedChars += result.html.length;
  for (const [oldest, entry] of rendered) {
    if (rendered.size <= CACHE_ENTRIES && cachedChars <= CACHE_CHARS) break;
    rendered.delete(oldest);
    cachedChars -= entry.html.length;
  }
}

function freshNonce(): string {
  return Math.random().toString(36).slice(2, 10);
}

/** Safe HTML for a message's markdown. */
export function renderMarkdown(text: string): Rendered {
  const cached = cachedMarkdown(text);
  if (cached !== undefined) return cached;
  // The nonce makes a slot unforgeable by the text itself (which markdown-it escapes anyway).
  const env: RenderEnv = { nonce: freshNonce(), slots: [] };
  const html = markdown.render(text, env);
  // Plain tags only (most messages): nothing for the sanitizer to remove, and its DOM parse is most of the cost.
  const safe = isPlainHtml(html) ? html : purify.sanitize(html);
  const result: Rendered = { html: fillSlots(safe, env) };
  if (env.slots.length > 0 && !math) {
    result.mathPending = loadMath().then(
      () => true,
      () => false, // rendering again now would retry at once, in a loop: the next message shown retries
    );
    return result; // not cached: the next render, once KaTeX is in, fills the slots
  }
  remember(text, result);
  return result;
}
