// The whole loop with no model server: `node --import tsx scripts/example-plugin/demo.ts`. It starts the
// scripted backend with a two-request script (the model calls `countdown`, then answers), a server with the
// example plugin on a temp data dir, sends one message over HTTP, and prints every event as it commits.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dialectStream, startScriptedBackend } from "../scripted-backend/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime } from "../../server/runtime.ts";

const backend = await startScriptedBackend();
backend.script(
  dialectStream("openai", {
    reasoning: "A countdown was asked for.",
    tool_calls: [{ id: "call_1", name: "countdown", arguments: '{"from":3}' }],
  }),
  dialectStream("openai", { content: "Done: three, two, one, liftoff!" }),
);
const dataDir = mkdtempSync(join(tmpdir(), "example-plugin-"));
const config = parseConfig({
  providers: { local: { provider: "reference_compatible", model: "scripted", base_url: backend.url } },
  plugins: ["./index.ts"],
});
const runtime = createRuntime({
  config,
  configDir: dirname(fileURLToPath(import.meta.url)),
  dataDir,
  adminToken: "demo",
});
const base = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: "Bearer demo", ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await res.json()) as Record<string, unknown>;
};

const { session } = (await call("POST", "/sessions", {})) as { session: { id: string } };
const { request_id } = (await call("POST", `/sessions/${session.id}/send`, {
  content: "Count down from 3, please.",
})) as { request_id: string };
console.log(`request ${request_id} accepted; events:`);
let since = "0";
for (let done = false; !done;) {
  const page = (await call("GET", `/events?request_id=${request_id}&since_id=${since}&wait_ms=5000`)) as {
    events: Array<Record<string, unknown>>;
    next_since_id: string;
  };
  for (const event of page.events) {
    const { event_id: _id, session_id: _s, request_id: _r, timestamp: _t, ...rest } = event;
    console.log(JSON.stringify(rest).slice(0, 160));
    done ||= event.type === "request_completed";
  }
  since = page.next_since_id;
}
console.log(JSON.stringify(await call("GET", `/sessions/${session.id}/notifications`)).slice(0, 200));
await runtime.close();
await backend.close();
rmSync(dataDir, { recursive: true, force: true });
