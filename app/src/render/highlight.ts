// Syntax highlighting of rendered code blocks, loaded on first need: highlight.js core and a handful of common
// languages in their own chunk, so the first load stays small. Unknown languages stay plain text.
type HighlightCore = typeof import("highlight.js/lib/core").default;

let loading: Promise<HighlightCore> | undefined;

function loadHighlighter(): Promise<HighlightCore> {
  loading ??= (async () => {
    const [core, ts, js, py, bash, json, css, xml, sql, go, rust] = await Promise.all([
      import("highlight.js/lib/core"),
      import("highlight.js/lib/languages/typescript"),
      import("highlight.js/lib/languages/javascript"),
      import("highlight.js/lib/languages/python"),
      import("highlight.js/lib/languages/bash"),
      import("highlight.js/lib/languages/json"),
      import("highlight.js/lib/languages/css"),
      import("highlight.js/lib/languages/xml"),
      import("highlight.js/lib/languages/sql"),
      import("highlight.js/lib/languages/go"),
      import("highlight.js/lib/languages/rust"),
    ]);
    const hljs = core.default;
    const languages = { typescript: ts, javascript: js, python: py, bash, json, css, xml, sql, go, rust };
    for (const [name, module] of Object.entries(languages)) hljs.registerLanguage(name, module.default);
    hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
    hljs.registerAliases(["js", "jsx"], { languageName: "javascript" });
    hljs.registerAliases(["sh", "shell", "zsh"], { languageName: "bash" });
    hljs.registerAliases(["html", "svg"], { languageName: "xml" });
    hljs.registerAliases(["py"], { languageName: "python" });
    return hljs;
  })();
  return loading;
}

/** Highlights the not yet highlighted code blocks under `root` whose language is known. */
export async function highlightWithin(root: HTMLElement): Promise<void> {
  const blocks = [...root.querySelectorAll<HTMLElement>("pre code[class*='language-']:not([data-highlighted])")];
  if (blocks.length === 0) return;
  const hljs = await loadHighlighter();
  for (const block of blocks) {
    const language = /language-(\S+)/.exec(block.className)?.[1];
    if (!language || !hljs.getLanguage(language) || !block.isConnected) continue;
    // highlight.js escapes the text it reads; its output is spans with classes only.
    block.innerHTML = hljs.highlight(block.textContent ?? "", { language }).value;
    block.dataset.highlighted = "yes";
  }
}
