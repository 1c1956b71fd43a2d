// A page for the renderer's Chromium tests and screenshots: the app's own stylesheets and message layout, with
// messages given by the test (window.harness.show) and the renderer's raw output (window.harness.render).
import { render } from "preact";
import { AttachmentThumbnails } from "../../../app/src/components/image-viewer.tsx";
import { MarkdownView } from "../../../app/src/render/markdown-view.tsx";
import "../../../app/src/styles/base.css";
import "../../../app/src/styles/chat.css";
import "../../../app/src/styles/screens.css";

export interface HarnessMessage {
  role: "user" | "assistant";
  text: string;
  attachments?: unknown;
}

function Transcript({ messages }: { messages: HarnessMessage[] }) {
  return (
    <div class="app">
      <main class="chat" style="overflow:auto; height: 100dvh">
        {messages.map((message, index) => (
          <div class="message-row" key={index}>
            {message.role === "user" ? (
              <article class="message user" data-role="user" aria-label="You">
                <div class="bubble">
                  <MarkdownView text={message.text} />
                  <AttachmentThumbnails attachments={message.attachments} />
                </div>
              </article>
            ) : (
              <article class="message assistant" data-role="assistant" aria-label="Assistant">
                <MarkdownView text={message.text} />
                <AttachmentThumbnails attachments={message.attachments} />
              </article>
            )}
          </div>
        ))}
      </main>
    </div>
  );
}

const harness = {
  show(messages: HarnessMessage[]): void {
    render(<Transcript messages={messages} />, document.getElementById("root")!);
  },
  /** The renderer's HTML for `text`, after KaTeX has loaded when the text has math. */
  async render(text: string): Promise<string> {
    const { renderMarkdown } = await import("../../../app/src/render/markdown.ts");
    let result = renderMarkdown(text);
    if (result.mathPending) {
      await result.mathPending;
      result = renderMarkdown(text);
    }
    return result.html;
  },
};

(window as unknown as { harness: typeof harness }).harness = harness;
