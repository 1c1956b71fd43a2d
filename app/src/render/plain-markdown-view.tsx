// A plain message's markdown laid out without the renderer (plain-markdown.ts): the same elements markdown.ts renders
// for paragraphs (a line break kept as a break) and tight lists, in `.markdown`, so it is as tall as the rendering
// that replaces it. A sketch of a row shows it (message-sketch.tsx), and so does a message whose rendering waits (a
// fast scroll's spent budget, the renderer still loading): either way, completing it moves nothing (LC10).
import type { PlainBlock } from "./plain-markdown.ts";

/**
 * A message's text before its rendering: its plain blocks laid out as they will render, or, when it is not plain
 * (`blocks` undefined), the text as written (`.markdown-source`).
 */
export function UnrenderedText({ text, blocks }: { text: string; blocks: PlainBlock[] | undefined }) {
  return blocks ? <PlainMarkdownView blocks={blocks} /> : <div class="markdown markdown-source">{text}</div>;
}

export function PlainMarkdownView({ blocks }: { blocks: PlainBlock[] }) {
  return (
    <div class="markdown">
      {blocks.map((block) =>
        block.kind === "paragraph" ? (
          <p>{block.lines.flatMap((line, at) => (at === 0 ? [line] : [<br />, line]))}</p>
        ) : (
          <ul>
            {block.items.map((item) => (
              <li>{item}</li>
            ))}
          </ul>
        ),
      )}
    </div>
  );
}
