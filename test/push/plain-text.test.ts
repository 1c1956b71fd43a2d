// A reply's Markdown as a push preview's plain words (server/push/plain-text.ts), under hostile replies: huge, deeply
// nested, unclosed. Parsing reads a bounded prefix, so the answer stays small whatever the reply's size.
import { expect, it } from "vitest";
import { markdownToPlainText } from "../../server/push/plain-text.ts";

it("keeps the words of emphasis, code, links, images and tables, without their signs", () => {
  const text = markdownToPlainText(
    "**a** _b_ `c` [d](https://e.example) ![f](g.png)\n\n| h | i |\n|---|---|\n| j | k |",
  );
  expect(text.replace(/\s+/g, " ").trim()).toBe("a b c d f h i j k");
});

it("reads a bounded prefix of a huge or deeply nested reply, and an unclosed fence keeps its text", () => {
  const nested = markdownToPlainText(`${"> ".repeat(200_000)}deep`);
  expect(nested.length).toBeLessThan(10_000);
  const huge = markdownToPlainText(`**${"word ".repeat(2_000_000)}`);
  expect(huge.length).toBeLessThan(10_000);
  expect(huge.trim().startsWith("**word word")).toBe(true);
  expect(markdownToPlainText("```js\nlet x = 1;").trim()).toBe("let x = 1;");
});
