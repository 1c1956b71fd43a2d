// A reply made speakable (docs/voice.md "Read aloud"): what a person would say reading it out, not its Markdown
// signs. Code blocks are named ("a Python code block"), links said by their text, images by their description,
// inline code and emphasis by their words, simple math by its words; tables and lists read row by row.
import MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";

const markdown = new MarkdownIt({ html: false, linkify: false });

const LANGUAGES: Record<string, string> = {
  js: "JavaScript",
  javascript: "JavaScript",
  ts: "TypeScript",
  typescript: "TypeScript",
  py: "Python",
  python: "Python",
  sh: "shell",
  bash: "shell",
  shell: "shell",
  json: "JSON",
  html: "HTML",
  css: "CSS",
  sql: "SQL",
  rust: "Rust",
  go: "Go",
  java: "Java",
  c: "C",
  cpp: "C++",
  yaml: "YAML",
};

const MATH_WORDS: Array<[RegExp, string]> = [
  [/\\frac\{([^{}]+)\}\{([^{}]+)\}/g, "$1 over $2"],
  [/\\sqrt\{([^{}]+)\}/g, "the square root of $1"],
  [/\^\{?2\}?/g, " squared"],
  [/\^\{?3\}?/g, " cubed"],
  [/\^\{([^{}]+)\}|\^(\w)/g, " to the power of $1$2"],
  [/\\times|\\cdot/g, " times "],
  [/\\le(q)?/g, " is at most "],
  [/\\ge(q)?/g, " is at least "],
  [/\\pi/g, "pi"],
  [/=/g, " equals "],
  [/\+/g, " plus "],
  [/(?<=\s|^)-(?=\s)/g, " minus "],
];

/** Simple LaTeX said in words; anything left over loses its backslashes and braces. */
export function mathWords(tex: string): string {
  let said = tex;
  for (const [pattern, words] of MATH_WORDS) said = said.replace(pattern, words);
  return said
    .replace(/\\[a-zA-Z]+/g, " ")
    .replace(/[{}_$]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function inlineText(tokens: readonly Token[]): string {
  let text = "";
  for (const token of tokens) {
    if (token.type === "text" || token.type === "code_inline") text += token.content;
    else if (token.type === "image") text += token.content ? `image: ${token.content}` : "an image";
    else if (token.type === "softbreak" || token.type === "hardbreak") text += " ";
  }
  return text;
}

function codeBlock(token: Token): string {
  const language = token.info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const name = LANGUAGES[language] ?? (language ? language : "");
  return name ? `(a ${name} code block)` : "(a code block)";
}

/** The reply's text to say: sentences and items separated so each ends where a reader would pause. */
export function speakable(source: string): string {
  const withMath = source
    .replace(/\$\$([\s\S]+?)\$\$/g, (_, tex: string) => ` ${mathWords(tex)}. `)
    .replace(/\\\[([\s\S]+?)\\\]/g, (_, tex: string) => ` ${mathWords(tex)}. `)
    .replace(/(?<![\\$\w])\$([^$\n]+?)\$(?!\w)/g, (_, tex: string) => mathWords(tex))
    .replace(/\\\((.+?)\\\)/g, (_, tex: string) => mathWords(tex));
  const parts: string[] = [];
  for (const token of markdown.parse(withMath, {})) {
    if (token.type === "inline") parts.push(inlineText(token.children ?? []));
    else if (token.type === "fence" || token.type === "code_block") parts.push(codeBlock(token));
    else if (token.type === "paragraph_close" || token.type === "heading_close") parts.push("\n");
    else if (token.type === "td_close" || token.type === "th_close") parts.push(",");
    else if (token.type === "tr_close" || token.type === "list_item_close") parts.push("\n");
  }
  return parts
    .join(" ")
    .split("\n")
    .map((line) =>
      line
        .replace(/\s+/g, " ")
        .replace(/\s+([,.;:!?])/g, "$1")
        .trim()
        .replace(/,$/, ""),
    )
    .filter((line) => line !== "" && line !== ",")
    .map((line) => (/[.!?:;)]$/.test(line) ? line : `${line}.`))
    .join(" ");
}
