// The MCP SDK's client and its HTTP transport, imported on the first connection to an MCP server rather than with
// the server: most servers configure none, and these modules (the client with its JSON Schema validator) were the
// largest import of the server's start that most starts never use, paid again by every test file that starts one.
// The SDK's types (schemas, McpError) stay a static import: they are small, and the stdio transport needs them.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export interface McpSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
}

let loading: Promise<McpSdk> | undefined;

/** The SDK, loaded once; a failed load is tried again at the next connection (its error names the SDK). */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]).then(
    ([client, http]) => ({ Client: client.Client, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport }),
    (error: unknown) => {
      loading = undefined;
      throw new Error(`the MCP SDK could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    },
  );
  return loading;
}
