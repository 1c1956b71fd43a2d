// scripts/start/first-run.ts against a real listening server (docs/security.md "First run"): on a terminal the link
// is the line `Open http://<host>:<port>/#/pair?code=…` for this machine's browser; once a device is paired there is
// none unless forced; when phones are given another address a second code's link is printed for them.
import { afterEach, describe, expect, it } from "vitest";
import { parsePairUrl } from "../../client/wire/index.ts";
import { writeLocalAdmin } from "../../server/auth/local-admin.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { offerFirstRunLink, PAIR_LINK_FILE } from "../../scripts/start/first-run.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { freePort } from "./support/processes.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const BRIDGE = "ws://127.0.0.1:4999/socket";

async function listening(config: ConfigInput = {}): Promise<{ url: string; dataDir: string }> {
  const port = await freePort();
  server = await startTestServer(config, { bridgeUrl: BRIDGE, serverUrl: `http://127.0.0.1:${port}` });
  const url = await server.runtime.app.listen({ host: "127.0.0.1", port });
  writeLocalAdmin(server.dataDir, {
    url,
    token: server.runtime.localAdminToken,
    pid: process.pid,
    admin_token_from_environment: true,
  });
  return { url, dataDir: server.dataDir };
}

async function offer(
  input: { url: string; dataDir: string },
  force = false,
): Promise<{ outcome: string; text: string }> {
  let text = "";
  const outcome = await offerFirstRunLink({
    dataDir: input.dataDir,
    serverUrl: input.url,
    localBridgeUrl: BRIDGE,
    force,
    terminal: true,
    write: (t) => (text += t),
  });
  return { outcome, text };
}

describe("the first-run link", () => {
  it("prints `Open <link>` for this machine while no device is paired, with a live code, the bridge and the key", async () => {
    const where = await listening();
    const { outcome, text } = await offer(where);
    expect(outcome).toBe("printed");
    const link = text.match(/^Open (\S+)$/m)![1]!;
    expect(link.startsWith(`${where.url}/#/pair?code=`)).toBe(true);
    const parsed = parsePairUrl(link)!;
    expect(parsed).toMatchObject({ bridge: BRIDGE, key: server!.runtime.ctx.e2e.publicKey });
    // The code is live: it redeems once.
    expect(server!.runtime.ctx.pairing.redeem(parsed.code, "browser")).toMatchObject({ ok: true });
    expect(text).not.toMatch(/phone/);
  });

  it("offers nothing once a device is paired, unless forced (npm start -- --pair)", async () => {
    const where = await listening();
    const { code } = server!.runtime.ctx.pairing.createCode();
    server!.runtime.ctx.pairing.redeem(code, "phone");
    writeFileSync(join(where.dataDir, PAIR_LINK_FILE), "Open http://127.0.0.1:1/#/pair?code=SPENT-SPENT\n");
    expect((await offer(where)).outcome).toBe("paired already");
    expect(existsSync(join(where.dataDir, PAIR_LINK_FILE))).toBe(false); // a spent link is not left to be found
    expect((await offer(where, true)).text).toMatch(/^Open http:\/\/127\.0\.0\.1:\d+\/#\/pair\?code=/m);
  });

  it("adds a phone's link, with another code, when apps are given another address", async () => {
    const where = await listening({ server: { public_url: "http://192.0.2.10:8787" } });
    const { text } = await offer(where);
    const local = parsePairUrl(text.match(/^Open (\S+)$/m)![1]!)!;
    const phoneLink = text.match(/same network, scan this or open: (\S+)$/m)![1]!;
    expect(phoneLink.startsWith("http://192.0.2.10:8787/#/pair?code=")).toBe(true);
    const phone = parsePairUrl(phoneLink)!;
    expect(phone.code).not.toBe(local.code);
  });
});
