// The names MCP tools reach the model under (docs/tools.md "Names"): `mcp__<server>__<tool>`, at most 64 letters,
// digits, '_' or '-', which every chat-completions backend accepts. A tool whose exposed name would break that,
// or would collide with another tool's, is left out and reported instead of renamed: a renamed tool would
// silently change what an agent's `tools` list refers to.
export const MCP_PREFIX = "mcp__";
/** What chat-completions backends accept as a function name. */
export const VALID_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * What MCP allows a tool's own name to be (the specification's "Tool names", 2025-11-25): 1 to 128 ASCII letters,
 * digits, '_', '-' or '.'. A server that lists another name (empty, spaces, control characters) is not trusted with
 * it: the tool is left out, whatever its exposed name would look like (`mcp__s__` for an empty one).
 */
export const VALID_MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function exposedName(server: string, tool: string): string {
  return `${MCP_PREFIX}${server}__${tool}`;
}

/** Why the server's tool `tool`, exposed as `name`, cannot be exposed, or undefined when it can. */
export function invalidToolReason(tool: string, name: string): string | undefined {
  if (!VALID_MCP_TOOL_NAME.test(tool))
    return `its name ${JSON.stringify(tool.slice(0, 80))} breaks MCP's rule for tool names (1 to 128 letters, digits, '_', '-' or '.')`;
  return invalidNameReason(name);
}

/** Why `name` cannot be exposed, or undefined when it can. */
export function invalidNameReason(name: string): string | undefined {
  if (name.length > 64) return `its exposed name "${name.slice(0, 80)}" is longer than 64 characters`;
  if (!VALID_TOOL_NAME.test(name))
    return `its exposed name "${name.slice(0, 80)}" has characters other than letters, digits, '_' and '-'`;
  return undefined;
}

/**
 * Whether an agent's `tools` list reaches this exposed tool: by its exact name, or by `mcp__<server>__*`.
 * An agent without a list gets no MCP tool (a server with 90 tools must not flood a small model's context).
 */
export function agentReaches(patterns: readonly string[] | undefined, server: string, name: string): boolean {
  if (patterns === undefined) return false;
  const wildcard = `${MCP_PREFIX}${server}__*`;
  return patterns.some((pattern) => pattern === name || pattern === wildcard);
}
