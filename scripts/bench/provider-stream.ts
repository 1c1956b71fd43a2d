// Benchmark: chunks/s of the provider adapter reading a 20,000-chunk (~3.6 MB) stream over loopback, beside the
// official `openai` SDK's stream parse and a bare fetch + eventsource-parser + JSON.parse loop of the same
// bytes, measured in the same run. Prints one JSON line of medians and ratios.
// Run: node --import tsx scripts/bench/provider-stream.ts [runs]
import { createParser } from "eventsource-parser";
import OpenAI from "openai";
import { chunk, encodeStream, startScriptedBackend } from "../scripted-backend/index.ts";
import { systemClock } from "../../server/clock.ts";
import { createProvider } from "../../server/provider/provider.ts";
import { PacingRegistry } from "../../server/provider/pacing.ts";
import { providerSettingsSchema } from "../../server/provider/settings.ts";

const CHUNKS = 20_000;
const RUNS = Number(process.argv[2] ?? 7);
const WORDS = ["alpha ", "beta ", "gamma ", "delta ", "epsilon "];

interface Sample {
  chunksPerSec: number;
  ttfdMs: number;
}

const body = encodeStream(
  Array.from({ length: CHUNKS }, (_, i) => ({ data: chunk({ content: WORDS[i % WORDS.length] }) })),
);
const backend = await startScriptedBackend({
  fallback: { kind: "bytes", contentType: "text/event-stream", body, writeSize: 64 * 1024 },
});
const messages = [{ role: "user" as const, content: "go" }];

/** `onChunks(n)`: n more chunks were delivered (the adapter coalesces the deltas of one network read). */
async function timed(run: (onChunks: (n: number) => void) => Promise<void>): Promise<Sample> {
  let count = 0;
  let first = 0;
  const start = performance.now();
  await run((n) => {
    if (count === 0) first = performance.now();
    count += n;
  });
  const end = performance.now();
  if (count !== CHUNKS) throw new Error(`expected ${CHUNKS} chunks, got ${count}`);
  return { chunksPerSec: CHUNKS / ((end - start) / 1000), ttfdMs: first - start };
}

const settings = providerSettingsSchema.parse({
  provider: "reference_compatible",
  model: "bench",
  base_url: backend.url,
  include_usage_in_stream: false,
});
const provider = createProvider(settings, { clock: systemClock, pacing: new PacingRegistry() });
/** Every streamed word ends in one space: counting spaces counts the chunks a coalesced delta carries. */
const wordsIn = (text: string) => {
  let n = 0;
  for (let i = text.indexOf(" "); i !== -1; i = text.indexOf(" ", i + 1)) n++;
  return n;
};
const adapter = (onChunks: (n: number) => void) =>
  (async () => {
    for await (const delta of provider.complete({ messages, stream: true, signal: new AbortController().signal }))
      if (delta.type === "content") onChunks(wordsIn(delta.text));
  })();

const client = new OpenAI({ baseURL: backend.url, apiKey: "bench", maxRetries: 0 });
const sdk = (onChunks: (n: number) => void) =>
  (async () => {
    const stream = await client.chat.completions.create({ model: "bench", messages, stream: true });
    for await (const c of stream) if (c.choices[0]?.delta.content) onChunks(1);
  })();

const bare = (onChunks: (n: number) => void) =>
  (async () => {
    const res = await fetch(`${backend.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "bench", messages, stream: true }),
    });
    const parser = createParser({
      onEvent: (event) => {
        if (event.data === "[DONE]") return;
        const parsed = JSON.parse(event.data) as { choices: Array<{ delta: { content?: string } }> };
        if (parsed.choices[0]?.delta.content) onChunks(1);
      },
    });
    const decoder = new TextDecoder();
    for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(bytes, { stream: true }));
  })();

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const contenders = { adapter, sdk, bare } as const;
type Name = keyof typeof contenders;
const names = Object.keys(contenders) as Name[];
const samples: Record<Name, Sample[]> = { adapter: [], sdk: [], bare: [] };
for (let i = 0; i < 2; i++) for (const run of Object.values(contenders)) await timed(run); // warm-up
for (let i = 0; i < RUNS; i++) {
  // Interleaved, so drift in machine load touches every contender alike; the order rotates each round so no
  // contender always runs right after the same one (and inherits its garbage-collection debt).
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length]!;
    samples[name].push(await timed(contenders[name]));
  }
}
await backend.close();

const rate = (name: Name) => Math.round(median(samples[name].map((s) => s.chunksPerSec)));
const ttfd = (name: Name) => Number(median(samples[name].map((s) => s.ttfdMs)).toFixed(3));
const result = {
  bench: "provider-stream",
  chunks: CHUNKS,
  bytes: body.length,
  runs: RUNS,
  adapter_chunks_per_s: rate("adapter"),
  sdk_chunks_per_s: rate("sdk"),
  bare_chunks_per_s: rate("bare"),
  adapter_vs_sdk: Number((rate("adapter") / rate("sdk")).toFixed(2)),
  adapter_vs_bare: Number((rate("adapter") / rate("bare")).toFixed(2)),
  adapter_ttfd_ms: ttfd("adapter"),
  sdk_ttfd_ms: ttfd("sdk"),
  bare_ttfd_ms: ttfd("bare"),
  added_ttfd_ms: Number((ttfd("adapter") - ttfd("bare")).toFixed(3)),
  // The same, paired within each round (less sensitive to load drift on a shared machine); informative only.
  added_ttfd_ms_paired: Number(median(samples.adapter.map((s, i) => s.ttfdMs - samples.bare[i]!.ttfdMs)).toFixed(3)),
  floors: { vs_sdk: 2, vs_bare: 0.7, added_ttfd_ms: 2 },
};
console.log(JSON.stringify(result));
