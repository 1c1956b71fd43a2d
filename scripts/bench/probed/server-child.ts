// A server in a process of its own, for the benchmarks that probe it while it works (scripts/bench/export.ts's
// ChatGPT import, scripts/bench/documents.ts's readings): what they measure is whether this process keeps answering
// /health meanwhile, so the probes must not share its event loop. Imports up to 2 GiB are allowed. Says
// `{type: "ready", url}` once listening; on `stop` it closes, removes its data folder and exits.
import { rmSync } from "node:fs";
import { z } from "zod";
import { parseConfig } from "../../../server/config/load.ts";
import { createRuntime } from "../../../server/runtime.ts";
import { tempDir } from "../../../test/support/server.ts";

const dir = tempDir("bench-export-child-");
const runtime = createRuntime({
  config: parseConfig({ import: { max_bytes: 2 * 1024 * 1024 * 1024 } }),
  dataDir: dir,
  adminToken: process.argv[2] ?? "bench-token",
});
const url = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
process.send!({ type: "ready", url });
process.on("message", (message) => {
  if (!z.object({ type: z.literal("stop") }).safeParse(message).success) return;
  void runtime.close().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
