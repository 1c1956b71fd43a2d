// A message body rendered from markdown (sanitized HTML), with copy buttons on code blocks and highlighting applied
// after paint. The renderer (markdown-it, DOMPurify) is loaded once the app is idle after its start, or on first need
// before that (renderer-chunk.ts), KaTeX on first need: until they are in, the message shows its source text, then
// renders again. It shows its source text too when the messages mounted in the same frame have spent its rendering
// budget (a fast scroll), and renders once the page is still (scroll-pacing.ts). Waiting, a plain message
// (plain-markdown.ts) is laid out as it will render, so rendering it changes no height. While a reply streams, the text
// is re-rendered at most once per frame (state/chat-feed.ts).
import { useContext, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useStore } from "../state/store.ts";
import { highlightWithin } from "./highlight.ts";
import type { Rendered } from "./markdown.ts";
import { rendererChunk } from "./renderer-chunk.ts";
import { Completing, NewestRank, whenSettled, withinBudget } from "./scroll-pacing.ts";
import { plainMarkdown } from "./plain-markdown.ts";
import { UnrenderedText } from "./plain-markdown-view.tsx";
import "./render.css";

export function MarkdownView({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const [loads, setLoads] = useState(0);
  const rank = useContext(NewestRank);
  // A row completed from its sketch renders its markdown at once, like a reply streaming in (scroll-pacing.ts).
  const now = useContext(Completing) || streaming;
  const result = useMemo(() => renderedNow(text, now, rank), [text, loads]);
  const root = useRef<HTMLDivElement>(null);
  const { env } = useStore();
  useEffect(() => {
    let live = true;
    const again = () => live && setLoads((count) => count + 1);
    const renderer = rendererChunk.loaded;
    let cancel: () => void = () => undefined;
    if (!renderer) rendererChunk.load().then(again, () => undefined);
    else if (!result) cancel = whenSettled(() => (renderer.renderMarkdown(text), again()), rank);
    else void result.mathPending?.then((loaded) => loaded && again());
    return () => {
      live = false;
      cancel();
    };
    // `loads` and `text` too: a message deferred before and after a load (or a new text) has no result either time.
  }, [result, loads, text]);
  useEffect(() => {
    // Highlighting a block that is still growing would be redone every frame: wait for the reply to end.
    // Highlighting is a nicety: a chunk that cannot load (offline, an old build) leaves the code plain.
    if (result && !streaming && root.current) {
      highlightWithin(root.current).catch((error: unknown) => env.report("highlighting code failed", error));
    }
  }, [result, streaming]);
  if (!result) return <Waiting text={text} />;
  return (
    <div
      class="markdown"
      ref={root}
      onClick={(event) => copyCodeOnClick(event, env.copyText)}
      dangerouslySetInnerHTML={{ __html: result.html }}
    />
  );
}

/**
 * A message whose rendering waits: plain markdown laid out as it will be rendered (no height change when it is), any
 * other as written. Only the text as written is `.markdown-source`.
 */
function Waiting({ text }: { text: string }) {
  const blocks = useMemo(() => plainMarkdown(text), [text]);
  return <UnrenderedText text={text} blocks={blocks} />;
}

/**
 * The message's rendering if it can be had now: from the cache, or rendered within this frame's budget (`now`, a
 * reply streaming in or a row completed from its sketch, always is); undefined until the renderer has loaded, or when
 * the budget is spent (scroll-pacing.ts).
 */
function renderedNow(text: string, now: boolean, rank: number | undefined): Rendered | undefined {
  const renderer = rendererChunk.loaded;
  if (!renderer) return undefined;
  if (now) return renderer.renderMarkdown(text);
  return renderer.cachedMarkdown(text) ?? withinBudget(() => renderer.renderMarkdown(text), rank);
}

/** Copies through the store's copyText: the clipboard API exists only in secure contexts. */
function copyCodeOnClick(event: MouseEvent, copyText: (text: string) => Promise<boolean>): void {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button.copy-code");
  const code = button?.closest(".code-block")?.querySelector("code")?.textContent;
  if (!button || code === undefined || code === null) return;
  void copyText(code).then((done) => flash(button, done ? "Copied" : "Copy failed"));
}

function flash(button: HTMLButtonElement, label: string): void {
  button.textContent = label;
  setTimeout(() => (button.textContent = "Copy"), 1500);
}
