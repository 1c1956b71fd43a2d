// A tool's result: `display.content` when the tool gave a text display (docs/runner.md "Tool loop"), else the raw content, folded
// when long. Interrupted or skipped calls say so.
import type { Message } from "../../../client/index.ts";

export function ToolMessage({ message }: { message: Message }) {
  const metadata = message.metadata ?? {};
  const name = typeof metadata.tool_name === "string" ? metadata.tool_name : "tool";
  const display = metadata.display as { type?: unknown; content?: unknown } | undefined;
  const shown = display?.type === "text" && typeof display.content === "string" ? display.content : message.content;
  const long = shown.length > 280 || shown.split("\n").length > 6;
  return (
    <div class="tool-result" data-role="tool">
      <span class="tool-label">
        Result of <code>{name}</code>
        {metadata.interrupted !== undefined && metadata.interrupted !== false && <em> (interrupted)</em>}
      </span>
      {long ? (
        <details>
          <summary>Show result</summary>
          <pre class="tool-output">{shown}</pre>
        </details>
      ) : (
        <pre class="tool-output">{shown}</pre>
      )}
    </div>
  );
}

/** The calls an assistant message asked for, by name with their arguments folded away. */
export function ToolCalls({ metadata }: { metadata: Record<string, unknown> | undefined }) {
  const calls = Array.isArray(metadata?.tool_calls)
    ? (metadata.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>)
    : [];
  if (calls.length === 0) return null;
  return (
    <ul class="tool-calls">
      {calls.map((call, index) => (
        <li key={index} class="tool-call">
          <details>
            <summary>
              Called <code>{String(call.function?.name ?? "tool")}</code>
            </summary>
            <pre class="tool-output">{String(call.function?.arguments ?? "")}</pre>
          </details>
        </li>
      ))}
    </ul>
  );
}
