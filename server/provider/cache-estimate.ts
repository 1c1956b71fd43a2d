// The cached-token estimation fallback of docs/provider.md "Usage and cost rules" 4, for backends that cache prompts but do not
// report cached tokens. It looks at the conversation before the current generation: user messages open turns;
// assistant messages that carry usage are generations; tool results and everything else are ignored.
import type { Message } from "../../client/wire/messages.ts";

interface Turn {
  /** Prompt tokens of each generation in the turn, in order. */
  inputs: number[];
}

/** Prompt tokens a stored assistant message reports, from the flat field or the raw usage object. */
export function promptTokensOf(message: Message): number | undefined {
  const meta = message.metadata;
  if (!meta) return undefined;
  if (typeof meta.usage_prompt_tokens === "number") return meta.usage_prompt_tokens;
  const usage = meta.usage;
  if (typeof usage === "object" && usage !== null) {
    const prompt = (usage as Record<string, unknown>).prompt_tokens;
    if (typeof prompt === "number") return prompt;
  }
  return undefined;
}

/** Splits the history into user turns; generations before any user message form a turn of their own. */
function turnsOf(history: Message[]): Turn[] {
  const turns: Turn[] = [{ inputs: [] }];
  for (const message of history) {
    if (message.role === "user") turns.push({ inputs: [] });
    else if (message.role === "assistant") {
      const prompt = promptTokensOf(message);
      if (prompt !== undefined) turns[turns.length - 1]!.inputs.push(prompt);
    }
  }
  return turns;
}

/**
 * Estimated cached prompt tokens of the generation whose prompt is `currentInput` tokens, given the history
 * sent with it. Rule 4, branch by branch:
 *  - no earlier generation at all: 0;
 *  - an earlier generation in the same user turn: its input when that does not exceed the current input, else 0;
 *  - first generation after a user message: the last input of the preceding populated turn when the current
 *    input is strictly greater; otherwise that turn's first input if it does not exceed the current input; else 0.
 */
export function estimateCachedTokens(history: Message[], currentInput: number): number {
  const turns = turnsOf(history);
  const current = turns[turns.length - 1]!;
  const previousInTurn = current.inputs[current.inputs.length - 1];
  if (previousInTurn !== undefined) return previousInTurn <= currentInput ? previousInTurn : 0;
  const populated = turns
    .slice(0, -1)
    .reverse()
    .find((turn) => turn.inputs.length > 0);
  if (!populated) return 0;
  const last = populated.inputs[populated.inputs.length - 1]!;
  if (currentInput > last) return last;
  const first = populated.inputs[0]!;
  return first <= currentInput ? first : 0;
}
