// A message body rendered from markdown (sanitized HTML), with copy buttons on code blocks and highlighting
// applied after paint. While a reply streams, the text is re-rendered at most once per frame (use-transcript).
import { useEffect, useMemo, useRef } from "preact/hooks";
import { highlightWithin } from "../render/highlight.ts";
import { renderMarkdown } from "../render/markdown.ts";
import { useStore } from "../state/store.ts";

export function MarkdownView({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  const { env } = useStore();
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Highlighting a block that is still growing would be redone every frame: wait for the reply to end.
    // Highlighting is a nicety: a chunk that cannot load (offline, an old build) leaves the code plain.
    if (!streaming && root.current) highlightWithin(root.current).catch((error: unknown) => env.report("highlighting code failed", error));
  }, [html, streaming]);
  return <div class="markdown" ref={root} onClick={(event) => copyCodeOnClick(event, env.copyText)} dangerouslySetInnerHTML={{ __html: html }} />;
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
