// `content` as a list of parts (Mistral's reasoning models, in deltas and whole messages):
//   [{"type": "text", "text": "..."}, {"type": "thinking", "thinking": [{"type": "text", "text": "..."}]}]
// Text parts are visible content, thinking parts are reasoning; any other part is kept as sent (the caller puts it
// in metadata) and never fails the reply. Narrowed by hand, like the rest of the per-chunk path (accumulator.ts).

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

export interface SplitParts {
  text: string;
  thinking: string;
  /** Parts of a type this adapter does not read (images, references, ...), in order. */
  other: unknown[];
}

export function splitContentParts(parts: readonly unknown[]): SplitParts {
  const out: SplitParts = { text: "", thinking: "", other: [] };
  for (const part of parts) {
    if (isObj(part) && part.type === "text" && typeof part.text === "string") out.text += part.text;
    else if (isObj(part) && part.type === "thinking") addThinking(part.thinking, out, part);
    else out.other.push(part);
  }
  return out;
}

/** A thinking part holds a string or its own list of text parts; anything else in it is kept whole. */
function addThinking(thinking: unknown, out: SplitParts, part: Obj): void {
  if (typeof thinking === "string") {
    out.thinking += thinking;
    return;
  }
  if (!Array.isArray(thinking)) {
    out.other.push(part);
    return;
  }
  for (const inner of thinking) {
    if (isObj(inner) && inner.type === "text" && typeof inner.text === "string") out.thinking += inner.text;
    else out.other.push({ type: "thinking", thinking: [inner] });
  }
}
