// Idle long-polls and commit cost (issue 11 item 17). Prints one JSON line: the time of N appends to session A
// over HTTP with no long-poll waiting (the baseline, same run), then with M long-polls idle on session B, and
// their ratio. A commit should wake only the waiters whose filter it matches, so idle polls on B cost A nothing.
// Usage: node --import tsx scripts/bench/long-poll-wakeups.ts [--polls 1000] [--appends 100]
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";

const { values } = parseArgs({
  options: { polls: { type: "string", default: "1000" }, appends: { type: "string", default: "100" } },
});
const POLLS = Number(values.polls);
const APPENDS = Number(values.appends);
const TOKEN = "bench-token";
const headers = { "authorization": `Bearer ${TOKEN}`, "content-type": "application/json" };

async function call(base: string, dispatcher: Agent, method: "GET" | "POST", path: string, body?: unknown) {
  const res = await request(`${base}${path}`, {
    method,
    headers,
    dispatcher,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.body.json()) as Record<string, unknown>;
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${JSON.stringify(json)}`);
  return json;
}

async function timeAppends(base: string, dispatcher: Agent, sessionId: string): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < APPENDS; i++)
    await call(base, dispatcher, "POST", `/sessions/${sessionId}/messages`, { role: "user", content: `message ${i}` });
  return performance.now() - start;
}

async function main() {
  const dir = tempDir("bench-long-poll-");
  const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: TOKEN });
  const base = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const appender = new Agent({ connections: 1 });
  const pollers = new Agent({ connections: POLLS + 10 });
  const sessionOf = async () => ((await call(base, appender, "POST", "/sessions", {})).session as { id: string }).id;
  const [a, b] = [await sessionOf(), await sessionOf()];

  const baselineMs = await timeAppends(base, appender, a);
  const since = runtime.ctx.events.latestId;
  const polls = Array.from({ length: POLLS }, () =>
    call(base, pollers, "GET", `/events?session_id=${b}&since_id=${since}&wait_ms=30000`).catch(() => undefined),
  );
  // Every poll connected and answered nothing yet: they are all waiting.
  while ((await new Promise<number>((r) => runtime.app.server.getConnections((_e, n) => r(n)))) < POLLS + 1)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500));
  const withPollsMs = await timeAppends(base, appender, a);

  await runtime.close();
  await Promise.all(polls);
  await Promise.all([appender.close(), pollers.close()]);
  rmSync(dir, { recursive: true, force: true });
  const round = (n: number) => Math.round(n * 10) / 10;
  process.stdout.write(
    JSON.stringify({
      bench: "long-poll-wakeups",
      appends: APPENDS,
      idle_long_polls: POLLS,
      baseline_ms: round(baselineMs),
      with_idle_polls_ms: round(withPollsMs),
      ratio: round(withPollsMs / baselineMs),
    }) + "\n",
  );
}

await main();
