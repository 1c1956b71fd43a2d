// The tools every loaded plugin registered, by name. A name is global: two plugins registering the same
// name is a load error, not a silent override. Agents see the subset their `tools` list names.
import { z } from "zod";
import type { ToolDefinition } from "../provider/index.ts";
import { toolInputSchema, type RegisteredTool, type ToolInput } from "./tools.ts";

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();

  register(plugin: string, input: ToolInput): RegisteredTool {
    const parsed = toolInputSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(
        `tool ${describeName(input)} of plugin "${plugin}": ${issue.path.join(".") || "(tool)"}: ${issue.message}`,
      );
    }
    const { name, description, parameters, run } = parsed.data;
    const existing = this.tools.get(name);
    if (existing)
      throw new Error(`tool "${name}" of plugin "${plugin}" is already registered by plugin "${existing.plugin}"`);
    let validator: z.ZodType;
    try {
      validator = z.fromJSONSchema(parameters as z.core.JSONSchema.JSONSchema);
    } catch (error) {
      throw new Error(
        `tool "${name}" of plugin "${plugin}": parameters is not a JSON schema we can validate with: ${(error as Error).message}`,
      );
    }
    const tool: RegisteredTool = { plugin, name, description, parameters, validator, run };
    this.tools.set(name, tool);
    return tool;
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  /** The tools an agent may call: all of them, or those its `tools` list names. */
  forAgent(allowed: readonly string[] | undefined): RegisteredTool[] {
    const all = [...this.tools.values()];
    return allowed === undefined ? all : all.filter((tool) => allowed.includes(tool.name));
  }

  /** Tool definitions as the provider sends them in the request's `tools`. */
  static definitions(tools: readonly RegisteredTool[]): ToolDefinition[] {
    return tools.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.parameters,
    }));
  }
}

function describeName(input: unknown): string {
  const name = typeof input === "object" && input !== null ? (input as { name?: unknown }).name : undefined;
  return typeof name === "string" ? `"${name}"` : "(unnamed)";
}
