// @vitest-environment happy-dom
// The renderer's markdown syntax in happy-dom: which text becomes math (math-syntax.ts) and which list items become
// tasks (task-lists.ts), and which HTML is plain enough to skip the sanitizer (plain-html.ts), on a markdown-it
// configured as markdown.ts configures it. Sanitizing and KaTeX's output
// are tested in Chromium (render-chromium.test.ts): DOMPurify does not support happy-dom, whose parsing differs.
// docs/app.md "Rendering" numbers the rules these tests prove.
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../support/seeded-random.ts";
import { MATH_MAX_CHARS, mathSyntax } from "../../app/src/render/math-syntax.ts";
import { isPlainHtml } from "../../app/src/render/plain-html.ts";
import { plainMarkdown, type PlainBlock } from "../../app/src/render/plain-markdown.ts";
import { taskListSyntax } from "../../app/src/render/task-lists.ts";

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true });
mathSyntax(markdown);
taskListSyntax(markdown);
for (const type of ["math_inline", "math_display", "math_block"]) {
  markdown.renderer.rules[type] = (tokens, index) => {
    const tag = type === "math_block" ? "div" : "span";
    return `<${tag} class="${type}">${markdown.utils.escapeHtml(tokens[index]!.content)}</${tag}>`;
  };
}

function rendered(text: string): HTMLElement {
  const root = document.createElement("div");
  root.innerHTML = markdown.render(text);
  return root;
}

const mathOf = (root: HTMLElement) =>
  Array.from(root.querySelectorAll(".math_inline, .math_display, .math_block")).map((node) => [
    node.className,
    node.textContent,
  ]);

describe("math spans", () => {
  it("recognises the four delimiters and keeps every backslash for KaTeX", () => {
    const root = rendered(
      "a $x_1 + y_2$ b \\(\\frac{a}{b}\\) c\n\n$$\n\\sum_{i=1}^n i\n$$\n\n\\[\\sqrt{2}\\,\\text{m}\\]\n\nin text \\[a \\\\ b\\] too",
    );
    expect(mathOf(root)).toEqual([
      ["math_inline", "x_1 + y_2"],
      ["math_inline", "\\frac{a}{b}"],
      ["math_block", "\\sum_{i=1}^n i"],
      ["math_block", "\\sqrt{2}\\,\\text{m}"],
      ["math_display", "a \\\\ b"],
    ]);
  });

  it("reads emphasis and underscores inside math as TeX, not markdown", () => {
    const root = rendered("$a_1 * b_2 * c$ and $x^*_i$");
    expect(root.querySelector("em, strong")).toBeNull();
    expect(mathOf(root)).toEqual([
      ["math_inline", "a_1 * b_2 * c"],
      ["math_inline", "x^*_i"],
    ]);
  });

  it("takes $$…$$ on one line as a displayed block", () => {
    expect(mathOf(rendered("$$E = mc^2$$"))).toEqual([["math_block", "E = mc^2"]]);
  });

  it("leaves prices and dollar signs that are not math as text", () => {
    const texts = [
      "It costs $5 and $10.",
      "between $5 and $10",
      "$ 5 and 6 $",
      "pay $5, get $",
      "US$ 3 and $4",
      "$x$5 apples",
      "$$",
      "$ $",
    ];
    for (const text of texts) {
      const root = rendered(text);
      expect(mathOf(root), text).toEqual([]);
      expect(root.textContent?.trim(), text).toBe(text);
    }
  });

  it("takes math after prices in the same paragraph, and only the math", () => {
    const root = rendered("Both cost $5 and $10, and $x^2$ is math; so is $y$.");
    expect(mathOf(root)).toEqual([
      ["math_inline", "x^2"],
      ["math_inline", "y"],
    ]);
    expect(root.textContent).toContain("Both cost $5 and $10, and x^2 is math");
  });

  it("keeps $ and \\( inside code spans and code blocks as code", () => {
    const root = rendered("`echo $HOME $PATH` and `\\(x\\)`\n\n```sh\nprice=$5; echo $x$\n```");
    expect(mathOf(root)).toEqual([]);
    expect(Array.from(root.querySelectorAll("code")).map((code) => code.textContent)).toEqual([
      "echo $HOME $PATH",
      "\\(x\\)",
      "price=$5; echo $x$\n",
    ]);
  });

  it("keeps an escaped \\$ as a dollar sign", () => {
    const root = rendered("\\$x$ is not math");
    expect(mathOf(root)).toEqual([]);
    expect(root.textContent?.trim()).toBe("$x$ is not math");
  });

  it("does not take an unclosed display block, nor one broken by a blank line", () => {
    expect(mathOf(rendered("$$\na + b\n\nc $$ d"))).toEqual([]);
    expect(mathOf(rendered("\\[ a"))).toEqual([]);
  });

  it("leaves a span longer than the limit as text", () => {
    const long = "x".repeat(MATH_MAX_CHARS + 1);
    expect(mathOf(rendered(`$${long}$ and \\(${long}\\)`))).toEqual([]);
    expect(mathOf(rendered(`$${"x".repeat(MATH_MAX_CHARS)}$`))).toHaveLength(1);
  });
});

describe("task lists", () => {
  it("turns [ ] and [x] items into disabled checkboxes labelled by the item's text", () => {
    const root = rendered("- [ ] write tests\n- [x] ship **it**\n- [X] done too\n- plain item");
    const boxes = Array.from(root.querySelectorAll<HTMLInputElement>("input[type=checkbox]"));
    expect(boxes.map((box) => [box.hasAttribute("disabled"), box.hasAttribute("checked")])).toEqual([
      [true, false],
      [true, true],
      [true, true],
    ]);
    expect(boxes.map((box) => box.closest("label")?.textContent?.trim())).toEqual([
      "write tests",
      "ship it",
      "done too",
    ]);
    expect(root.querySelectorAll("li.task-list-item")).toHaveLength(3);
    expect(root.querySelectorAll("li")[3]!.className).toBe("");
  });

  it("works in ordered and nested lists, and leaves other brackets alone", () => {
    const root = rendered("1. [x] first\n   - [ ] nested\n\n[ ] not in a list\n\n- [y] not a marker\n- [ ]no space");
    expect(root.querySelectorAll("input")).toHaveLength(2);
    expect(root.textContent).toContain("[ ] not in a list");
    expect(root.textContent).toContain("[y] not a marker");
  });
});

describe("plain HTML, which skips the sanitizer (plain-html.ts)", () => {
  /** Each text beside whether its rendering counts as plain, so a failure names the text. */
  const plainness = (text: string) => ({ text, plain: isPlainHtml(markdown.render(text)) });

  it("is what ordinary messages render to, hostile text included: markdown-it escapes it", () => {
    for (const text of [
      "Chat 3, message 12: an ordinary sentence. An ordinary sentence about everyday things.",
      "two lines\nwith a *break*, **strong**, `code` and ~~struck~~ text & \"quotes\" 'too'",
      "# Title\n\n- one\n- two\n\n1. first\n\n> quoted\n\n---\n\n    indented code",
      '<img src=x onerror="alert(1)"> <script>alert(2)</script> <!-- comment -->',
      "| a | b |\n|---|---|\n| 1 | 2 |",
    ])
      expect(plainness(text)).toEqual({ text, plain: true });
  });

  it("is not what a link, an image, a fence with its language, a task list, math or a numbered list's start render to", () => {
    for (const text of [
      "[a](https://example.org)",
      "see https://example.org",
      "![c](https://example.org/c.png)",
      "```js\nlet a = 1;\n```",
      "- [x] done",
      "a $x_1$ b",
      "3. third\n4. fourth",
      "| a | b |\n|:-|-:|\n| 1 | 2 |",
    ])
      expect(plainness(text)).toEqual({ text, plain: false });
  });

  it("refuses any tag with an attribute, any other tag, a comment or a tag spelled otherwise", () => {
    for (const html of [
      '<p onclick="x">a</p>',
      "<p >a</p>",
      "<P>a</P>",
      "<p>a</p foo>",
      '<img src="x">',
      "<script>a</script>",
      "<svg><p>a</p></svg>",
      "<!-- a -->",
      "<p>a<",
      "<br/>",
      "<a>b</a>",
    ])
      expect({ html, plain: isPlainHtml(html) }).toEqual({ html, plain: false });
    expect(isPlainHtml("<p>a &amp; &lt;b&gt;<br>\nc</p>\n<ul>\n<li>d</li>\n</ul>\n")).toBe(true);
  });
});

describe("plain markdown, which a sketch lays out without the renderer (plain-markdown.ts, LC10)", () => {
  /** The HTML markdown-it writes for these blocks. */
  const htmlOf = (blocks: PlainBlock[]) =>
    blocks
      .map((block) =>
        block.kind === "paragraph"
          ? `<p>${block.lines.map((line) => markdown.utils.escapeHtml(line)).join("<br>\n")}</p>\n`
          : `<ul>\n${block.items.map((item) => `<li>${markdown.utils.escapeHtml(item)}</li>\n`).join("")}</ul>\n`,
      )
      .join("");
  const agrees = (text: string) => {
    const blocks = plainMarkdown(text);
    return { text, html: blocks && htmlOf(blocks) };
  };

  it("reads paragraphs, line breaks and tight lists of plain words as markdown-it does", () => {
    for (const text of [
      "Chat 3, message 12: kalo mine suta. An ordinary sentence about everyday things.",
      "long chat message 4.\n\n- first point\n- second point",
      'one line\nanother (with "quotes"), and it\'s fine!\n\n\nA third - or fourth? paragraph: yes.',
      "\nleading and trailing blank lines\n\n",
      "- a list first\n- then\n\na paragraph\n\n- and a list again",
      "Ünïcödé wörds, 日本語 and ½ too.",
    ]) {
      expect(plainMarkdown(text)).toBeDefined();
      expect(agrees(text)).toEqual({ text, html: markdown.render(text) });
    }
  });

  it("refuses whatever markdown-it could read as syntax: emphasis, code, links, headings, numbered or loose lists, indents", () => {
    for (const text of [
      "a *b* c",
      "a _b_ c",
      "a `b` c",
      "see example.com",
      "see localhost:3000",
      "http: yes",
      "# heading",
      "1. first",
      "3) third",
      "a\n- b",
      "- a\n\n- b",
      "- a\nb",
      "    code",
      "a  \nb",
      "a\n---",
      "- - nested",
      "a & b",
      "a $x$ b",
      "- [ ] task",
      "",
      "\n\n",
    ])
      expect({ text, blocks: plainMarkdown(text) }).toEqual({ text, blocks: undefined });
  });

  it("agrees with markdown-it on every text it accepts, among random texts of plain and syntax characters", () => {
    const random = seededRandom(35);
    const alphabet = [
      "a",
      "b",
      "7",
      " ",
      " ",
      ".",
      ",",
      ":",
      "-",
      "- ",
      "1. ",
      "\n",
      "\n\n",
      "*",
      "_",
      "(",
      ")",
      '"',
      "ü",
    ];
    let accepted = 0;
    for (let round = 0; round < 4000; round++) {
      const length = 1 + Math.floor(random() * 24);
      const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      if (plainMarkdown(text) === undefined) continue;
      accepted++;
      expect(agrees(text)).toEqual({ text, html: markdown.render(text) });
    }
    expect(accepted).toBeGreaterThan(100);
  });
});
