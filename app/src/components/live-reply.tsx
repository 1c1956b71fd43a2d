// The reply being streamed: reasoning in a collapsed "Thinking" block that grows, the text so far, the tools
// running now, and a retry countdown after a pre-stream retry marker.
import type { LiveReply } from "../chat/transcript.ts";
import { MarkdownView } from "./markdown-view.tsx";
import { ThinkingBlock } from "./thinking-block.tsx";

export function LiveReplyView({ live }: { live: LiveReply }) {
  const waiting = live.content === "" && live.reasoning === "" && live.tools.length === 0;
  return (
    <article
      class="message assistant streaming"
      data-role="assistant"
      data-streaming="true"
      aria-label="Assistant (replying)"
      aria-busy="true"
    >
      <ThinkingBlock text={live.reasoning} streaming={true} />
      {live.content !== "" && <MarkdownView text={live.content} streaming={true} />}
      {live.tools.length > 0 && <p class="tools-running">Running {live.tools.join(", ")}…</p>}
      {live.retry && (
        <p class="retrying">
          Busy backend: retry {live.retry.attempt} in {Math.ceil(live.retry.delay_ms / 1000)} s…
        </p>
      )}
      {waiting && !live.retry && (
        <p class="typing" aria-label="Waiting for the reply">
          <span />
          <span />
          <span />
        </p>
      )}
    </article>
  );
}
