// The server of scripts/bench/export.ts's ChatGPT import, in a process of its own: what the benchmark measures is
// whether this process keeps answering while it imports, so the probes must not share its event loop. Says
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
