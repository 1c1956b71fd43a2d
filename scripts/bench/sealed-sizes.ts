// What the server's two sealed-relay ciphers cost by payload size (docs/benchmarks.md "Sealed relay", fifth pass):
// OpenSSL's ChaCha20-Poly1305 behind noble's HChaCha20 against noble's XChaCha20-Poly1305 (xchacha.ts), for opening
// a sealed call and sealing an answer of each size, with the library's openRequest and sealResponse. Each timed two
// ways, in one process with a server runtime: alone in a warm loop (the floor's measure of the cipher) and beside
// the route (paired batches of plain relayed calls with and without it: cipher-cost.ts), where the cipher's code
// and buffers are cold among the route's. The two ciphers alternate at every size, so a drift in load hits both.
// Prints one JSON line: per size, per cipher, open and seal, alone and in place, CPU µs per operation (medians).
// Usage: node --import tsx scripts/bench/sealed-sizes.ts [--batches 7] [--sizes 64,256,1024,2600,8192,65536]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  generateKeyPair,
  openRequest,
  sealRequest,
  sealResponse,
  useCipher,
  type CipherName,
} from "../../client/wire/crypto/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import { runRelayedCall } from "../../server/forwarder/api-relay.ts";
import { createRuntime } from "../../server/runtime.ts";
import { aloneUs, CALL_ID, inPlaceUs } from "./relay/cipher-cost.ts";
import { pairDevices, seedSession } from "./relay/seed.ts";
import { median } from "./stats.ts";

const { values } = parseArgs({
  options: {
    batches: { type: "string", default: "7" },
    sizes: { type: "string", default: "64,256,1024,2600,8192,65536" },
  },
});
const BATCHES = Number(values.batches);
const SIZES = values.sizes.split(",").map(Number);
const CIPHERS: CipherName[] = ["openssl", "noble"];
const round = (n: number) => Math.round(n * 100) / 100;

/** JSON text of exactly `bytes` bytes (at least 12): what the cipher sees is bytes, the shape does not matter. */
const jsonOf = (bytes: number) => JSON.stringify({ pad: "a".repeat(Math.max(0, bytes - 10)) });

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-sealed-sizes-"));
  const runtime = createRuntime({ config: parseConfig({ server: { server_id: "bench" } }), dataDir });
  try {
    const { ctx } = runtime;
    const path = seedSession(ctx);
    const keys = generateKeyPair();
    const [device] = pairDevices(ctx, 1, "e2e app", keys.publicKey);
    const call = { request_id: CALL_ID, device_id: device!.device_id, method: "GET" as const, path };
    const route = () => runRelayedCall(ctx, runtime.app, call);
    const key = ctx.e2e.relayKey(keys.publicKey);
    const { serverId } = ctx;
    const deviceId = device!.device_id;
    const figures: Record<string, Record<string, Record<string, number>>> = {};
    for (const size of SIZES) {
      const sealedCall = sealRequest(key, serverId, deviceId, jsonOf(size));
      const answer = jsonOf(size);
      const work = {
        open: () => void openRequest(key, serverId, deviceId, sealedCall),
        seal: () => void sealResponse(key, serverId, deviceId, CALL_ID, answer),
      };
      const bySize: Record<string, Record<string, number[]>> = {};
      // Interleaved: each round measures every cipher once, in turn.
      for (let pass = 0; pass < BATCHES; pass++)
        for (const cipher of CIPHERS) {
          if (useCipher(cipher) !== cipher) throw new Error(`${cipher} is not available here`);
          const mine = (bySize[cipher] ??= {});
          for (const [op, run] of Object.entries(work)) {
            (mine[`${op}_alone`] ??= []).push(...aloneUs(run, 1));
            (mine[`${op}_in_place`] ??= []).push(...(await inPlaceUs(run, route, 1)));
          }
        }
      figures[size] = Object.fromEntries(
        Object.entries(bySize).map(([cipher, ops]) => [
          cipher,
          Object.fromEntries(Object.entries(ops).map(([op, us]) => [op, round(median(us))])),
        ]),
      );
    }
    process.stdout.write(
      `${JSON.stringify({ bench: "sealed_sizes", batches: BATCHES, us_per_op: figures, load_average_1m: round(loadavg()[0]!) })}\n`,
    );
  } finally {
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
