// The API relay's cost (issue 14): GET /sessions/{id}/messages relayed through the bridge (an official phoenix
// client pushing `api`) against the same request over direct HTTP (undici, keep-alive) on loopback, at 1 and at
// 50 concurrent apps, each app sending its next call when the last answered. Prints one JSON line: p50/p99 of
// both per concurrency, what the relay adds at p50, the throughput of both, the CPU each process spent in the
// 50-app phases, and the load average. As deployed, the bridge, the server (with its forwarder) and the apps run
// in separate processes (scripts/bench/relay/*-child.ts), each on its own core when the machine has them. The
// relay's rate bounds are lifted here: this measures its cost, not them. Both modes of issue 15 in one run: plain
// apps push `api` in clear; encrypting apps (`e2e_relay_*`, devices paired with a key) seal each call to the server's
// key and open the sealed answer (client/transport/sealed-relay.ts), with what that adds at p50 over the plain relay
// and the throughput ratio e2e/plain.
// The e2e variants (`e2e_relay_noble`, `e2e_relay_platform`) run at 50 apps only: each crypto seam's optimisation
// with and without in the same run (docs/benchmarks.md "Sealed relay"). With `relay` in the run, every sealed route
// also gets the server floor's figures, its cipher timed with its own seams (e2e_relay's under the names the floor
// uses, another's prefixed with its route: serverFloor), and the server's garbage and CPU by thread per call of each
// route (server_gc_per_call_50, server_threads_us_per_call_50).
// Usage: node --import tsx scripts/bench/relay.ts [--requests 4000] [--warmup 500] [--rounds 8] [--only <route>]
// [--routes relay,e2e_relay,...] (BENCH_APP_PROCESSES=1; BENCH_CPU_PROF=<dir> for a V8 profile per child, with --only
// to profile one route)
import type { ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { z } from "zod";
import { generateKeyPair } from "../../client/wire/crypto/index.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { forkChild, nextMessage } from "./child-process.ts";
import {
  fromApps,
  fromBridge,
  fromServer,
  routeSchema,
  type Route,
  type Seams,
  type ToApps,
} from "./relay/protocol.ts";
import { median, percentile } from "./stats.ts";
import type { GcStats } from "./relay/gc-meter.ts";
import type { ThreadStats } from "./relay/thread-meter.ts";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "4000" },
    warmup: { type: "string", default: "500" },
    rounds: { type: "string", default: "8" },
    only: { type: "string" },
    routes: { type: "string" },
  },
});
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);
/** Phases of each route at 50 apps (alternating), `REQUESTS / ROUNDS` calls each. */
const ROUNDS = z.coerce.number().int().min(1).parse(values.rounds);
const DEVICES = 50;
const APP_PROCESSES = Number(process.env.BENCH_APP_PROCESSES ?? 1);
const ONLY = values.only === undefined ? undefined : routeSchema.parse(values.only);
const ROUTES = ONLY
  ? [ONLY]
  : values.routes === undefined
    ? routeSchema.options
    : values.routes.split(",").map((route) => routeSchema.parse(route));
/** The seams each e2e route runs with, in the server and the apps alike; the plain routes seal nothing. */
const SEAMS: Partial<Record<Route, Seams>> = {
  e2e_relay: { cipher: "openssl", random: "pooled" },
  e2e_relay_noble: { cipher: "noble", random: "pooled" },
  e2e_relay_platform: { cipher: "openssl", random: "platform" },
};
/** Routes that are one seam's variant of e2e_relay: measured at 50 apps only. */
const isVariant = (route: Route) => route.startsWith("e2e_relay_");
const here = fileURLToPath(new URL("./relay/", import.meta.url));

const parseApps = (m: unknown) => fromApps.parse(m);
const parseBridge = (m: unknown) => fromBridge.parse(m);
const parseServer = (m: unknown) => fromServer.parse(m);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n: number) => Math.round(n * 100) / 100;

/** Asks a child a question and waits for the answer of that type. */
async function ask<T extends { type: string }>(
  proc: ChildProcess,
  parse: (m: unknown) => T,
  question: object,
  answer: T["type"],
): Promise<T> {
  const reply = nextMessage(proc, parse, (m) => m.type === answer);
  proc.send(question);
  return reply;
}

async function main(): Promise<void> {
  const bridgeProc = forkChild(here, "bridge-child.ts");
  const serverProc = forkChild(here, "server-child.ts");
  const appProcs = Array.from({ length: APP_PROCESSES }, () => forkChild(here, "apps-child.ts"));
  const bridgeReady = await nextMessage(bridgeProc, parseBridge, (m) => m.type === "ready");
  if (bridgeReady.type !== "ready") throw new Error("the bridge child did not start");
  // The encrypting apps' key pair: the server pairs their devices with its public half, the apps seal with the secret.
  const deviceKeys = generateKeyPair();
  const server = await ask(
    serverProc,
    parseServer,
    { type: "start", bridge_url: bridgeReady.url, devices: DEVICES, device_key: deviceKeys.publicKey },
    "ready",
  );
  if (server.type !== "ready") throw new Error("the server child did not start");

  // The apps join once the bridge grants every token (the server's `grants` push follows its join).
  const hashes = [...server.tokens, ...server.e2e.devices.map((device) => device.token)].map(sha256Hex);
  for (let tries = 0; ; tries++) {
    const known = await ask(bridgeProc, parseBridge, { type: "known", token_hashes: hashes }, "known");
    if (known.type === "known" && known.count === hashes.length) break;
    if (tries > 200) throw new Error("the bridge never learnt the devices");
    await sleep(50);
  }
  await Promise.all(
    appProcs.map((proc, i) => {
      const mine = <T>(list: T[]) => list.filter((_, k) => k % APP_PROCESSES === i);
      const e2e = {
        device_secret_key: deviceKeys.secretKey,
        server_key: server.e2e.server_key,
        devices: mine(server.e2e.devices),
      };
      return ask(
        proc,
        parseApps,
        {
          type: "connect",
          bridge_url: bridgeReady.url,
          server_url: server.url,
          server_id: server.server_id,
          path: server.path,
          tokens: mine(server.tokens),
          e2e,
        } satisfies ToApps,
        "connected",
      );
    }),
  );

  const all = [bridgeProc, serverProc, ...appProcs];
  /** `apps` apps spread over the app processes, `total` calls in all; latencies and wall-clock throughput. */
  const run = async (route: Route, apps: number, total: number) => {
    const seams = SEAMS[route];
    if (seams) {
      const inUse = await Promise.all(
        [serverProc, ...appProcs].map((proc) =>
          ask(proc, (m) => fromApps.or(fromServer).parse(m), { type: "seams", seams }, "seams"),
        ),
      );
      // A child that could not switch (no OpenSSL cipher) would measure something else under this route's name.
      if (inUse.some((m) => m.type === "seams" && (m.cipher !== seams.cipher || m.random !== seams.random)))
        throw new Error(`a child could not use ${JSON.stringify(seams)}`);
    }
    const shares = appProcs.map((_, i) => Math.floor(apps / APP_PROCESSES) + (i < apps % APP_PROCESSES ? 1 : 0));
    const busy = appProcs.flatMap((proc, i) => (shares[i]! > 0 ? [{ proc, apps: shares[i]! }] : []));
    const answers = await Promise.all(
      busy.map(({ proc, apps: n }) =>
        ask(
          proc,
          parseApps,
          { type: "run", route, apps: n, total: Math.round((total * n) / apps) } satisfies ToApps,
          "ran",
        ),
      ),
    );
    const ran = answers.flatMap((m) => (m.type === "ran" ? [m] : []));
    const latencies = ran.flatMap((m) => m.latencies);
    const seconds = (Math.max(...ran.map((m) => m.end)) - Math.min(...ran.map((m) => m.start))) / 1000;
    return { latencies, seconds, perSecond: latencies.length / seconds };
  };
  const cpuOf = async (route: Route, apps: number, total: number) => {
    all.forEach((proc) => proc.send({ type: "phase" }));
    const measured = await run(route, apps, total);
    const statsOf = (proc: ChildProcess) =>
      ask(proc, (m) => fromApps.or(fromBridge).or(fromServer).parse(m), { type: "stats" }, "stats");
    // The server's answer read with its own schema: it carries the server's garbage, which a union would drop.
    const [bridge, serverStats, ...appStats] = await Promise.all([
      statsOf(bridgeProc),
      ask(serverProc, parseServer, { type: "stats" }, "stats"),
      ...appProcs.map(statsOf),
    ]);
    const cpu = (...ms: ({ type: string; stats?: { cpu_user_ms: number; cpu_sys_ms: number } } | undefined)[]) => {
      const used = { user: 0, sys: 0 };
      for (const m of ms) if (m?.stats) ((used.user += m.stats.cpu_user_ms), (used.sys += m.stats.cpu_sys_ms));
      return used;
    };
    const gc = serverStats.type === "stats" ? serverStats.gc : undefined;
    // How often the server waited for a frame: fewer waits per call, more calls handled in one turn.
    const waits = serverStats.type === "stats" ? (serverStats.stats.switches_voluntary ?? 0) : 0;
    const floorWrites = serverStats.type === "stats" ? serverStats.floor_writes : 0;
    const threads = serverStats.type === "stats" ? serverStats.threads : undefined;
    const cpus = { bridge: cpu(bridge), server: cpu(serverStats), apps: cpu(...appStats) };
    return { measured, cpu: cpus, gc, threads, waits, floorWrites };
  };

  const figures: Record<string, unknown> = {};
  /** The server's floor is figured when both of its routes run: the cipher's cost is then sampled after each phase. */
  // Each sealed route's own: its cipher (OpenSSL's for e2e_relay, noble's for e2e_relay_noble) timed with its seams.
  const floorRoutes = ROUTES.includes("relay") ? ROUTES.filter((route) => SEAMS[route]) : [];
  const cipherSamples: Partial<Record<Route, { alone: number[]; inPlace: number[] }>> = {};
  for (const apps of [1, DEVICES]) {
    const routes = ROUTES.filter((route) => apps === DEVICES || !isVariant(route));
    // Warm both paths (JIT, connections), then alternate them so drift in the machine's load hits both.
    for (const route of routes) await run(route, apps, WARMUP);
    // Then one round as measured, not counted (with the cipher's sampling after each phase): without it the first
    // sealed phase at 50 apps cost the server ~50 µs a call more than the later ones in every run, ~30 of them on its
    // other threads (V8's workers), after the warmup and the first sampling alike.
    if (apps === DEVICES)
      for (const route of routes) {
        await cpuOf(route, apps, Math.round(REQUESTS / ROUNDS));
        for (const sealed of floorRoutes) await cipherCost(serverProc, SEAMS[sealed]!);
      }
    const measured: Partial<Record<Route, Awaited<ReturnType<typeof cpuOf>>>> = {};
    const phases: Partial<Record<Route, Phase[]>> = {};
    // Each route in rounds, an equal share of the calls each time, in one order and then the reverse (A B C C B A A B
    // C ...): a drift in the machine's load, or whatever favours a phase for its place in the run, weighs on every
    // route alike. At 50 apps, `--rounds` rounds: the floor's figure is the median of the rounds' differences.
    const rounds = apps === DEVICES ? ROUNDS : 2;
    const order = Array.from({ length: rounds }, (_, r) => (r % 2 === 0 ? routes : [...routes].reverse())).flat();
    for (const route of order) {
      const phase = await cpuOf(route, apps, Math.round(REQUESTS / rounds));
      measured[route] = measured[route] ? merged(measured[route], phase) : phase;
      (phases[route] ??= []).push(phase);
      if (apps === DEVICES)
        for (const sealed of floorRoutes) {
          const cipher = await cipherCost(serverProc, SEAMS[sealed]!);
          const samples = (cipherSamples[sealed] ??= { alone: [], inPlace: [] });
          samples.alone.push(...cipher.alone);
          samples.inPlace.push(...cipher.inPlace);
        }
    }
    for (const route of routes) {
      const latencies = measured[route]!.measured.latencies;
      figures[`${route}_p50_ms_${apps}`] = round(percentile(latencies, 50));
      figures[`${route}_p99_ms_${apps}`] = round(percentile(latencies, 99));
      figures[`${route}_req_per_s_${apps}`] = Math.round(measured[route]!.measured.perSecond);
    }
    const p50 = (route: Route) => percentile(measured[route]!.measured.latencies, 50);
    const { direct, relay, e2e_relay } = measured;
    if (direct && relay) figures[`relay_adds_p50_ms_${apps}`] = round(p50("relay") - p50("direct"));
    for (const route of routes.filter((r) => r.startsWith("e2e_relay"))) {
      if (relay) {
        figures[`${route}_adds_p50_ms_${apps}`] = round(p50(route) - p50("relay"));
        figures[`${route}_ratio_to_plain_${apps}`] = round(
          measured[route]!.measured.perSecond / relay.measured.perSecond,
        );
      }
      if (e2e_relay && route !== "e2e_relay")
        figures[`${route}_ratio_to_e2e_relay_${apps}`] = round(
          measured[route]!.measured.perSecond / e2e_relay.measured.perSecond,
        );
    }
    if (apps === DEVICES) {
      figures.cpu_us_per_call_50 = Object.fromEntries(routes.map((route) => [route, perCall(measured[route]!)]));
      figures.server_gc_per_call_50 = Object.fromEntries(routes.map((route) => [route, gcPerCall(measured[route]!)]));
      figures.server_threads_us_per_call_50 = Object.fromEntries(
        routes.map((route) => [route, threadsPerCall(measured[route]!)]),
      );
      for (const sealed of floorRoutes)
        if (relay && measured[sealed])
          Object.assign(figures, serverFloor(sealed, phases.relay!, phases[sealed]!, cipherSamples[sealed]!));
    }
  }

  all.forEach((proc) => proc.disconnect());
  process.stdout.write(
    `${JSON.stringify({ bench: "relay", requests: REQUESTS, app_processes: APP_PROCESSES, ...figures, load_average_1m: round(loadavg()[0]!) })}\n`,
  );
}

/**
 * The cipher's own cost per sealed call (opening the call and sealing the answer with e2e_relay's seams, timed alone in
 * the server: cipher-cost.ts), a few batches taken between two phases, so that the figure samples the load the phases
 * ran under; and as many figures of its cost beside the route (the second figure, not the floor's).
 */
async function cipherCost(serverProc: ChildProcess, seams: Seams): Promise<{ alone: number[]; inPlace: number[] }> {
  await ask(serverProc, (m) => fromServer.parse(m), { type: "seams", seams }, "seams");
  const cipher = await ask(serverProc, (m) => fromServer.parse(m), { type: "cipher", batches: 3 }, "cipher");
  return cipher.type === "cipher"
    ? { alone: cipher.us_per_call, inPlace: cipher.in_place_us_per_call }
    : { alone: [], inPlace: [] };
}

/**
 * The sealed relay's floor on the server: its CPU per sealed call beyond a plain relayed call's, against the cipher's
 * own cost (the median of the batches sampled through the 50-app phases) in the same run. The numerator is the median
 * of the rounds' differences (each round a plain phase and a sealed one, side by side in the run): one phase that a
 * burst of the machine's load or a collection's timing lands on moves the median by one place, where it moved the
 * pooled figure (also printed, `_pooled`) by its whole excess. Beside it, labelled as such, the same difference against
 * the cipher's cost beside the route (`_in_place`): not the floor's figure. The floor is e2e_relay's (the seams the
 * server ships), its figures named as before; another sealed route's carry its name first
 * (`e2e_relay_noble_server_cipher_us_per_call`).
 */
function serverFloor(route: Route, plain: Phase[], sealed: Phase[], samples: { alone: number[]; inPlace: number[] }) {
  const cipherUs = median(samples.alone);
  const inPlaceUs = median(samples.inPlace);
  const serverUs = (phase: Phase) =>
    ((phase.cpu.server!.user + phase.cpu.server!.sys) * 1000) / phase.measured.latencies.length;
  const rounds = sealed.map((phase, r) => serverUs(phase) - serverUs(plain[r]!));
  const extraUs = median(rounds);
  const pooled = (phases: Phase[]) => serverUs(phases.reduce((a, b) => merged(a, b)));
  const prefix = route === "e2e_relay" ? "" : `${route}_`;
  return {
    [`${prefix}server_cipher_us_per_call`]: round(cipherUs),
    [`${prefix}server_cipher_us_range`]: [round(Math.min(...samples.alone)), round(Math.max(...samples.alone))],
    [`${route}_server_extra_us_50`]: round(extraUs),
    [`${route}_server_extra_us_rounds_50`]: rounds.map(round),
    [`${route}_server_us_rounds_50`]: sealed.map((phase) => round(serverUs(phase))),
    relay_server_us_rounds_50: plain.map((phase) => round(serverUs(phase))),
    [`${route}_server_waits_per_call_rounds_50`]: sealed.map((p) => round(p.waits / p.measured.latencies.length)),
    relay_server_waits_per_call_rounds_50: plain.map((p) => round(p.waits / p.measured.latencies.length)),
    [`${route}_server_major_gcs_rounds_50`]: sealed.map((p) => p.gc?.major ?? 0),
    relay_server_major_gcs_rounds_50: plain.map((p) => p.gc?.major ?? 0),
    [`${route}_server_other_threads_us_rounds_50`]: sealed.map((p) => otherThreadsUs(p)),
    relay_server_other_threads_us_rounds_50: plain.map((p) => otherThreadsUs(p)),
    [`${route}_floor_writes_per_call_rounds_50`]: sealed.map((p) => round(p.floorWrites / p.measured.latencies.length)),
    [`${route}_server_extra_us_pooled_50`]: round(pooled(sealed) - pooled(plain)),
    [`${route}_server_extra_per_cipher_50`]: round(extraUs / cipherUs),
    [`${prefix}server_cipher_in_place_us_per_call`]: round(inPlaceUs),
    [`${route}_server_extra_per_cipher_in_place_50`]: round(extraUs / inPlaceUs),
  };
}

type Phase = {
  measured: { latencies: number[]; seconds: number; perSecond: number };
  cpu: Record<string, { user: number; sys: number }>;
  /** The server's garbage over the phase (gc-meter.ts). */
  gc: GcStats | undefined;
  /** The server's CPU by thread over the phase (thread-meter.ts). */
  threads: ThreadStats | undefined;
  /** The server's voluntary context switches over the phase. */
  waits: number;
  /** The replay guard's floor writes over the phase: one per turn that held fresh sealed calls. */
  floorWrites: number;
};

/** Two phases of one route as one: their calls, their time, their CPU. */
function merged<T extends Phase>(a: T, b: T): T {
  const latencies = [...a.measured.latencies, ...b.measured.latencies];
  const seconds = a.measured.seconds + b.measured.seconds;
  const cpu = Object.fromEntries(
    Object.entries(a.cpu).map(([name, used]) => [
      name,
      { user: used.user + b.cpu[name]!.user, sys: used.sys + b.cpu[name]!.sys },
    ]),
  );
  const gc =
    a.gc && b.gc
      ? (Object.fromEntries(
          Object.entries(a.gc).map(([name, value]) => [name, value + b.gc![name as keyof GcStats]]),
        ) as GcStats)
      : undefined;
  const threads =
    a.threads && b.threads
      ? {
          main_ms: a.threads.main_ms + b.threads.main_ms,
          other_threads_ms: a.threads.other_threads_ms + b.threads.other_threads_ms,
        }
      : undefined;
  const counts = { waits: a.waits + b.waits, floorWrites: a.floorWrites + b.floorWrites };
  return { ...a, measured: { latencies, seconds, perSecond: latencies.length / seconds }, cpu, gc, threads, ...counts };
}

/**
 * The server's garbage per call: bytes allocated on V8's heap and in backing stores, collections per 1,000 calls,
 * and the collections' time in µs per call (their cost as V8 reports it, wall time inside the process).
 */
function gcPerCall({ gc, measured }: Phase) {
  if (!gc) return undefined;
  const calls = measured.latencies.length;
  const per = (n: number, scale = 1) => round((n * scale) / calls);
  return {
    heap_bytes: Math.round(gc.heap_allocated_bytes / calls),
    external_bytes: Math.round(gc.external_allocated_bytes / calls),
    scavenges_per_1000: per(gc.scavenges, 1000),
    major_per_1000: per(gc.major, 1000),
    scavenge_us: per(gc.scavenge_ms, 1000),
    major_us: per(gc.major_ms, 1000),
  };
}

/** The server's CPU per call in µs on its threads besides the JavaScript one, over one phase. */
const otherThreadsUs = (phase: Phase) =>
  round(((phase.threads?.other_threads_ms ?? 0) * 1000) / phase.measured.latencies.length);

/** The server's CPU per call in µs on its JavaScript thread and on its other threads (V8's workers above all). */
function threadsPerCall({ threads, measured }: Phase) {
  if (!threads) return undefined;
  return {
    main: round((threads.main_ms * 1000) / measured.latencies.length),
    others: round((threads.other_threads_ms * 1000) / measured.latencies.length),
  };
}

/** CPU per call in µs, `[user, system]` per process: who pays for a call, and how much of it is the kernel's. */
function perCall({ cpu, measured }: Phase): Record<string, [number, number]> {
  const us = (ms: number) => Math.round((ms * 1000) / measured.latencies.length);
  return Object.fromEntries(Object.entries(cpu).map(([name, { user, sys }]) => [name, [us(user), us(sys)]]));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
