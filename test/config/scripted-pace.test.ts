// The scripted backend streams at a pace (issue 20 item 17; docs/provider.md "Scripted backend"): a stream scenario
// with `delayMs` waits that long between its writes (counted here through the injected sleep, so nothing waits), the
// CLI paces by default (40 ms) so a person can try Stop, and tests that set no delay stream at once.
import { describe, expect, it } from "vitest";
import { chunk, startScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { DEFAULT_DELAY_MS, parseCliArgs } from "../../scripts/scripted-backend/cli-args.ts";
import { freePort, killAll, run, type Run } from "./support/processes.ts";
import { useClosing } from "../support/use-closing.ts";

const runs: Run[] = [];
const closing = useClosing();

const streamRequest = (url: string) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stream: true, messages: [] }),
  });

describe("the scripted backend's pace", { timeout: 60_000 }, () => {
  it("waits delayMs between the writes of a paced stream, and never without one", async () => {
    const waits: number[] = [];
    const backend = closing.own(await startScriptedBackend({ sleep: async (ms) => void waits.push(ms) }));
    const parts = ["a", "b", "c"].map((content) => ({ data: chunk({ content }) }));
    backend.script({ kind: "stream", parts, delayMs: 40 }, { kind: "stream", parts });
    expect(await (await streamRequest(backend.url)).text()).toContain("[DONE]");
    // Three parts and [DONE]: a wait before each write but the first.
    expect(waits).toEqual([40, 40, 40]);
    await (await streamRequest(backend.url)).text();
    expect(waits).toHaveLength(3);
  });

  it("paces the CLI by default, and takes --delay-ms", () => {
    expect(DEFAULT_DELAY_MS).toBe(40);
    expect(parseCliArgs([])).toEqual({ port: 8089, dialect: "openai", delayMs: 40 });
    expect(parseCliArgs(["9000", "--delay-ms", "0", "ollama"])).toEqual({ port: 9000, dialect: "ollama", delayMs: 0 });
    expect(parseCliArgs(["--delay-ms=15"]).delayMs).toBe(15);
    expect(() => parseCliArgs(["--delay-ms", "soon"])).toThrow(/--delay-ms: "soon" is not a number/);
  });

  it("streams from the real CLI: the reply's pieces, then [DONE]", async () => {
    const cli = run(["scripts/scripted-backend/main.ts", String(await freePort()), "--delay-ms", "1"], {});
    runs.push(cli);
    // Registered in the test: what a scope owns is forgotten once it is closed after each test.
    closing.onClose(() => killAll(runs));
    const [, url] = await cli.waitFor(/base_url (\S+)/);
    const body = await (await streamRequest(url!)).text();
    expect(body).toContain('"content":"Hell"');
    expect(body).toContain("[DONE]");
  });
});
