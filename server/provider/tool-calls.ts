// Assembles streamed tool-call fragments into whole calls. Backends disagree on how fragments are keyed
// (docs/provider.md "What real backends send"): by `index` (possibly starting at 1), by a repeated `id`, by nothing at all
// (continuations of the last call), or one chunk per whole call. The rule, in order:
//   1. an index seen before names that call, unless the fragment brings a different id (a parallel call that
//      reuses the index: never merge two calls' arguments);
//   2. otherwise an id seen before names that call;
//   3. otherwise a fragment with neither index nor id continues the last call;
//   4. anything else starts a new call.
// Names are set once; empty or null names on continuations never erase or extend them. Fields of a call the
// adapter does not read (Gemini's `extra_content.google.thought_signature`) are kept on the call, last value
// wins, and so go back to the backend with the call in the tool loop (messages.ts).
import { ProviderError, excerpt } from "./errors.ts";
import type { ToolCall } from "./types.ts";

interface Slot {
  position: number;
  id: string | undefined;
  name: string;
  args: string[];
  /** Provider-specific fields of the call, as sent. */
  extras: Record<string, unknown>;
}

/** Fields of a tool-call fragment the assembler reads itself. */
const READ_FIELDS = new Set(["index", "id", "type", "function"]);

export interface ToolCallProgress {
  index: number;
  id?: string;
  name?: string;
  arguments_delta: string;
}

export class ToolCallAssembler {
  private readonly slots: Slot[] = [];
  private readonly byIndex = new Map<number, Slot>();
  private readonly byId = new Map<string, Slot>();

  get size(): number {
    return this.slots.length;
  }

  /** Adds one fragment; returns its progress, or undefined for a fragment that is not an object. */
  add(fragment: unknown): ToolCallProgress | undefined {
    if (typeof fragment !== "object" || fragment === null) return undefined;
    const f = fragment as Record<string, unknown>;
    const index = typeof f.index === "number" ? f.index : undefined;
    const id = typeof f.id === "string" && f.id !== "" ? f.id : undefined;
    const fn = typeof f.function === "object" && f.function !== null ? (f.function as Record<string, unknown>) : {};
    const name = typeof fn.name === "string" && fn.name !== "" ? fn.name : undefined;
    // Some servers send complete arguments as an object rather than a JSON string.
    const args =
      typeof fn.arguments === "string" ? fn.arguments : fn.arguments != null ? JSON.stringify(fn.arguments) : "";

    const slot = this.find(index, id) ?? this.open();
    if (index !== undefined) this.byIndex.set(index, slot);
    if (id !== undefined && slot.id === undefined) {
      slot.id = id;
      this.byId.set(id, slot);
    }
    if (name !== undefined && slot.name === "") slot.name = name;
    if (args !== "") slot.args.push(args);
    for (const key in f) {
      const value = f[key];
      if (!READ_FIELDS.has(key) && value !== null && value !== undefined && key !== "__proto__")
        slot.extras[key] = value;
    }

    const progress: ToolCallProgress = { index: slot.position, arguments_delta: args };
    if (id !== undefined) progress.id = id;
    if (name !== undefined) progress.name = name;
    return progress;
  }

  /**
   * The assembled calls in order of first appearance ("" arguments count as {}). Arguments that are not JSON
   * are kept as sent: the tool loop answers them with a tool result the model can read (toolArgumentsError),
   * instead of failing the whole request for one bad call.
   */
  finish(): ToolCall[] {
    return this.slots.map((slot) => {
      const name = slot.name;
      if (name === "") {
        throw new ProviderError(
          "invalid_response",
          `the backend sent tool call #${slot.position} without a function name; check that the model supports tool calling`,
        );
      }
      const joined = slot.args.join("");
      const args = joined.trim() === "" ? "{}" : joined;
      return {
        ...slot.extras,
        id: slot.id ?? `call_${slot.position}_${Math.random().toString(36).slice(2, 10)}`,
        type: "function",
        function: { name, arguments: args },
      };
    });
  }

  private find(index: number | undefined, id: string | undefined): Slot | undefined {
    if (index !== undefined) {
      const slot = this.byIndex.get(index);
      if (slot && !(id !== undefined && slot.id !== undefined && slot.id !== id)) return slot;
      if (slot) return undefined;
    }
    if (id !== undefined) return this.byId.get(id);
    if (index === undefined) return this.slots[this.slots.length - 1];
    return undefined;
  }

  private open(): Slot {
    const slot: Slot = { position: this.slots.length, id: undefined, name: "", args: [], extras: {} };
    this.slots.push(slot);
    return slot;
  }
}

/** The typed error for a call whose arguments are not JSON, or undefined when they parse. */
export function toolArgumentsError(call: ToolCall): ProviderError | undefined {
  try {
    JSON.parse(call.function.arguments);
    return undefined;
  } catch {
    return new ProviderError(
      "invalid_tool_arguments",
      `the backend sent arguments for tool "${call.function.name}" that are not JSON: "${excerpt(call.function.arguments)}"; the model may have been cut off (check max_tokens) or may not support tool calling`,
    );
  }
}
