// Runs `work` against a server in its own process (server-child.ts here), then stops it and waits for it to exit:
// what scripts/bench/export.ts and scripts/bench/documents.ts measure while the server imports or reads.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { forkChild, nextMessage } from "../child-process.ts";

const ready = z.object({ type: z.literal("ready"), url: z.string() });

export async function withProbedServer<T>(adminToken: string, work: (url: string) => Promise<T>): Promise<T> {
  const child = forkChild(dirname(fileURLToPath(import.meta.url)), "server-child.ts", { args: [adminToken] });
  const started = await nextMessage(
    child,
    (m) => ready.safeParse(m).data,
    (m) => m !== undefined,
  );
  try {
    return await work(started!.url);
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.send({ type: "stop" });
    await exited;
  }
}
