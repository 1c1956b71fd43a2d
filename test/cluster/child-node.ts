// A cluster node in a child process (node-process.ts), so a test can SIGKILL it: no close, no link released, its
// claims lapse. Resolves once it listens; killed and its data dir removed at cleanup.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanups } from "../bridge/helpers.ts";
import { FAST_CLUSTER } from "./support.ts";

export async function childNode(
  redisUrl: string,
  keyPrefix: string,
  nodeId: string,
): Promise<{ child: ChildProcess; port: number; url: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "cluster-node-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = { port: 0, dataDir, cluster: { redisUrl, keyPrefix, nodeId, ...FAST_CLUSTER } };
  const child = spawn(process.execPath, ["--import", "tsx", "test/cluster/node-process.ts", JSON.stringify(config)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  cleanups.push(() => void child.kill("SIGKILL"));
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening (\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`node process exited with ${code}`)));
  });
  return { child, port, url: `ws://127.0.0.1:${port}/socket` };
}
