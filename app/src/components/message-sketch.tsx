// A message's row as a fast scroll mounts it (render/scroll-pacing.ts): the same frame (an article of its role, named
// as the full row names it), its text and an empty bar where its toolbar comes (`data-sketch` marks it); no hooks, no
// signals, no listeners, so mounting a screen of them costs little more than their text's layout.
// The full row (message-item.tsx) replaces it once the page is still. A plain message (paragraphs and tight lists of
// plain words, nothing in its metadata to show) is laid out as the renderer lays it out, so its sketch is as tall as
// its full row and completing it moves nothing (LC10); any other shows its text as written.
import type { Message } from "../../../client/index.ts";
import { plainMarkdown } from "../render/plain-markdown.ts";
import { UnrenderedText } from "../render/plain-markdown-view.tsx";

/** The roles a row can be sketched for: a tool result has its own frame and mounts in full. */
export function sketchable(message: Message): boolean {
  return message.role === "user" || message.role === "assistant" || message.role === "system";
}

/**
 * What a plain message's row is laid out from, as a string (its role, and each block's kind and lines' lengths):
 * plain rows of one shape are mostly as tall as each other at the same width, sketch or full row (LC10; mostly, as
 * lines of the same length in a proportional font need not wrap alike), so the list estimates an unmeasured row at the
 * height last measured for its shape (row-estimates.ts): an estimate, corrected once measured. Undefined for any other
 * message, whose height its text does not tell.
 */
export function plainShape(message: Message): string | undefined {
  const blocks = message.content === "" || !bare(message) ? undefined : plainMarkdown(message.content);
  const lengths = (lines: string[]) => lines.map((line) => line.length).join(",");
  const shapes = blocks?.map((block) =>
    block.kind === "paragraph" ? `p${lengths(block.lines)}` : `l${lengths(block.items)}`,
  );
  return shapes && `${message.role} ${shapes.join(" ")}`;
}

export function MessageSketch({ message }: { message: Message }) {
  const blocks = message.content === "" || !bare(message) ? undefined : plainMarkdown(message.content);
  const text = message.content === "" ? null : <UnrenderedText text={message.content} blocks={blocks} />;
  const sketch = blocks ? "laid-out" : "as-written";
  if (message.role === "user")
    return (
      <article class="message user" data-role="user" aria-label="You" data-sketch={sketch}>
        <div class="bubble">{text}</div>
        <div class="message-menu pending" />
      </article>
    );
  return (
    <article
      class={`message ${message.role}`}
      data-role={message.role}
      aria-label={message.role === "assistant" ? "Assistant" : "System"}
      data-sketch={sketch}
    >
      {text}
      <div class="message-menu pending" />
    </article>
  );
}

/** No metadata: nothing beside the text (sender, attachments, thinking, tool calls, usage, notices) in the full row. */
function bare(message: Message): boolean {
  return message.metadata === undefined || Object.keys(message.metadata).length === 0;
}
