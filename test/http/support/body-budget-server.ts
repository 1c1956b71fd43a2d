// A real server in a child process, for test/http/body-budget.test.ts to flood and read the peak RSS of (from /proc)
// apart from the test's own memory. argv: the budget's total and per-caller bytes. Sends {port} once it listens and
// ends when its parent disconnects.
import { rmSync } from "node:fs";
import { buildApp } from "../../../server/app.ts";
import { BodyBudget } from "../../../server/http/body-budget.ts";
import { httpServerOptions } from "../../../server/http/server-options.ts";
import { startTestServer } from "../../support/server.ts";

const [totalBytes, perCallerBytes] = process.argv.slice(2).map(Number);
const server = await startTestServer();
const app = buildApp(server.runtime.ctx, httpServerOptions(), {
  bodyBudget: new BodyBudget({ totalBytes: totalBytes!, perCallerBytes: perCallerBytes! }),
});
const address = await app.listen({ host: "127.0.0.1", port: 0 });
process.send!({ port: Number(new URL(address).port) });
process.on("disconnect", () => {
  void app.close().then(() => {
    rmSync(server.dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
