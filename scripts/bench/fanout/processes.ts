// The fan-out benchmarks' child processes (forked and awaited by scripts/bench/child-process.ts), the parsers of
// their messages, and the small helpers the fan-out benchmarks share.
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { forkChild as forkIn, nextMessage } from "../child-process.ts";
import {
  fromBridgeChild,
  fromReceivers,
  type BridgeStats,
  type FromBridgeChild,
  type FromReceivers,
} from "./protocol.ts";

export { nextMessage };

const here = fileURLToPath(new URL("./", import.meta.url));

/** Forks `scripts/bench/fanout/<file>`; `env` is added to the parent's environment. */
export function forkChild(file: string, env: Record<string, string> = {}): ChildProcess {
  return forkIn(here, file, { env });
}

export const parseReceiver = (m: unknown): FromReceivers => fromReceivers.parse(m);
export const parseBridge = (m: unknown): FromBridgeChild => fromBridgeChild.parse(m);

/** Asks the bridge child for its RSS. */
export async function bridgeRss(bridge: ChildProcess): Promise<number> {
  const reply = nextMessage(bridge, parseBridge, (m) => m.type === "rss");
  bridge.send({ type: "rss" });
  const message = await reply;
  return message.type === "rss" ? message.rss : 0;
}

/** Asks the bridge child for its counters and CPU since the last phase. */
export async function bridgeStatsOf(bridge: ChildProcess): Promise<BridgeStats> {
  const reply = nextMessage(bridge, parseBridge, (m) => m.type === "stats");
  bridge.send({ type: "stats" });
  const message = await reply;
  if (message.type !== "stats") throw new Error("the bridge child sent no stats");
  return message.bridge;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
export const round2 = (n: number): number => Math.round(n * 100) / 100;
