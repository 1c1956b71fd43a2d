// The model's reasoning, collapsed by default; it streams while open or closed, and says so while it grows.
export function ThinkingBlock({ text, streaming }: { text: string; streaming: boolean }) {
  if (text === "") return null;
  return (
    <details class="thinking">
      <summary>{streaming ? "Thinking…" : "Thinking"}</summary>
      <div class="thinking-text">{text}</div>
    </details>
  );
}
