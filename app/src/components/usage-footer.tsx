// Token usage under an assistant message (docs/provider.md "Usage and cost rules"): the formatted counts the provider put in metadata,
// the cost when present, and the estimated-cached figure when the agent asks for it and an estimate exists.
import type { AgentView as Agent } from "../../../client/index.ts";

export function UsageFooter({
  metadata,
  agent,
}: {
  metadata: Record<string, unknown> | undefined;
  agent: Agent | undefined;
}) {
  if (!metadata || !agent) return null;
  const parts: string[] = [];
  if (agent.show_usage) {
    const prompt = figure(metadata, "usage_prompt_tokens");
    const completion = figure(metadata, "usage_completion_tokens");
    const total = figure(metadata, "usage_total_tokens");
    if (prompt) parts.push(`${prompt} in`);
    if (completion) parts.push(`${completion} out`);
    if (total) parts.push(`${total} total`);
    const cost = metadata.usage_cost ?? metadata.usage_cost_formatted;
    if (typeof cost === "string" || typeof cost === "number")
      parts.push(typeof cost === "number" ? `$${cost.toFixed(4)}` : cost);
  }
  const cached = agent.show_estimated_cached_tokens ? figure(metadata, "usage_estimated_cached_tokens") : undefined;
  if (parts.length === 0 && !cached) return null;
  return (
    <p class="usage">
      {parts.length > 0 && <span>{parts.join(" · ")} tokens</span>}
      {cached && <span class="estimated">≈ {cached} cached (estimated)</span>}
    </p>
  );
}

/** The `_formatted` variant when the provider gave one, else the number. */
function figure(metadata: Record<string, unknown>, key: string): string | undefined {
  const formatted = metadata[`${key}_formatted`];
  if (typeof formatted === "string") return formatted;
  const value = metadata[key];
  return typeof value === "number" ? value.toLocaleString() : undefined;
}
