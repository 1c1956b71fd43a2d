// The forwarder survives its database failing under it (docs/bridge.md B33): a cursor write or a grants read that
// throws inside a timer, a phoenix callback or a change listener is logged, and the work is retried later, instead of
// an uncaught exception ending the server process.
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatEventId } from "../../client/wire/index.ts";
import { Meta } from "../../server/db/meta.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { joinOnce, phoenixSocket, runCleanups, testBridge, until, type TestBridge, codeOnBridge } from "./helpers.ts";
import { createSession, serverPeer, type ServerPeer } from "./server-peer.ts";

afterEach(async () => {
  vi.restoreAllMocks();
  await runCleanups();
});

const CURSOR_FAILED = "could not persist the forwarder cursor; retrying at the next ack";
const GRANTS_FAILED = "could not read the pairing grants for the bridge; sending them at the next change or rejoin";

async function linked(bridge: TestBridge) {
  await until(() => {
    const link = bridge.core.registry.get("srv1")?.link;
    return link !== undefined && !link.connection.closed;
  }, "the forwarder joined the bridge");
}

/** The forwarder is joined and its join reply handled (grants sent, pump running): an event made now is relayed. */
async function forwarding(bridge: TestBridge, peer: ServerPeer) {
  await linked(bridge);
  await createSession(peer);
  const latest = formatEventId(peer.server.runtime.ctx.events.latestId);
  await until(() => bridge.core.registry.get("srv1")!.lastId === latest, "an event relayed");
}

/** Errors the server logged with this message. */
function logged(errors: { mock: { calls: unknown[][] } }, msg: string): number {
  return errors.mock.calls.filter((call) => call[1] === msg).length;
}

async function newCode(bridge: TestBridge, peer: ServerPeer): Promise<string> {
  const created = await peer.server.request({ method: "POST", url: "/pairing", payload: {} });
  expect(created.status).toBe(201);
  return created.json.code as string;
}

describe("forwarder faults", () => {
  it("logs a failed cursor write, keeps forwarding, and persists the cursor once writes work again", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const { ctx } = peer.server.runtime;
    const meta = new Meta(ctx.db);
    const stored = () => meta.get("forwarder_cursor");
    const cursorOf = (id: number) => `${id}@${ctx.events.epoch}`;
    await linked(bridge);
    await createSession(peer);
    const first = ctx.events.latestId;
    await until(() => stored() === cursorOf(first), "cursor persisted");

    // The cursor's write is an upsert: fail both its insert and its update, as a full disk would.
    ctx.db.exec(`
      CREATE TRIGGER cursor_insert_fails BEFORE INSERT ON meta WHEN NEW.key = 'forwarder_cursor' BEGIN SELECT RAISE(FAIL, 'disk full'); END;
      CREATE TRIGGER cursor_update_fails BEFORE UPDATE ON meta WHEN NEW.key = 'forwarder_cursor' BEGIN SELECT RAISE(FAIL, 'disk full'); END;
    `);
    const errors = vi.spyOn(ctx.log, "error");
    await createSession(peer);
    const second = ctx.events.latestId;
    await until(() => logged(errors, CURSOR_FAILED) > 0, "the failed write logged");
    const [fields] = errors.mock.calls.find((call) => call[1] === CURSOR_FAILED)! as [{ err: Error; cursor: number }];
    expect(fields.err.message).toBe("disk full");
    expect(fields.cursor).toBe(second);
    expect(stored()).toBe(cursorOf(first));
    // The process and the forwarder live on: the event reached the bridge.
    expect(bridge.core.registry.get("srv1")!.lastId).toBe(formatEventId(second));

    ctx.db.exec("DROP TRIGGER cursor_insert_fails; DROP TRIGGER cursor_update_fails");
    await createSession(peer);
    const third = ctx.events.latestId;
    await until(() => stored() === cursorOf(third), "cursor persisted at the next ack");
  });

  it("logs a failed grants read on a change and sends the grants with the next change", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const { ctx } = peer.server.runtime;
    await forwarding(bridge, peer);
    const errors = vi.spyOn(ctx.log, "error");
    const grants = vi.spyOn(ctx.pairing, "grants").mockImplementation(() => {
      throw new Error("SQLITE_BUSY: database is locked");
    });
    // The listener runs inside createCode: before, its throw failed the request after the code was stored.
    const first = await newCode(bridge, peer);
    expect(logged(errors, GRANTS_FAILED)).toBe(1);
    expect(bridge.core.registry.findCode(hashPairingCode(first))).toBeUndefined();

    grants.mockRestore();
    const second = await newCode(bridge, peer);
    await codeOnBridge(bridge, second, "the next change's grants");
    expect(bridge.core.registry.findCode(hashPairingCode(first))).toBeDefined();
  });

  it("rejoins when the grants cannot be read at join time, never sending empty grants; events flow again", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const { ctx } = peer.server.runtime;
    await forwarding(bridge, peer);
    // A paired device: empty grants would revoke it on the bridge.
    const code = await newCode(bridge, peer);
    await codeOnBridge(bridge, code, "code on the bridge");
    expect((await joinOnce(phoenixSocket(bridge.url).channel("pairing", { code, device_name: "phone" }))).status).toBe(
      "ok",
    );
    await until(() => bridge.core.registry.get("srv1")!.devices.size === 1, "device granted");

    const errors = vi.spyOn(ctx.log, "error");
    const realGrants = ctx.pairing.grants.bind(ctx.pairing);
    // "fail": every read throws; "join reply": the join's params read works and the join reply's read throws.
    let mode: "fail" | "join reply" | "ok" = "fail";
    let reads = 0;
    vi.spyOn(ctx.pairing, "grants").mockImplementation(() => {
      if (mode === "fail" || (mode === "join reply" && ++reads === 2)) {
        if (mode === "join reply") mode = "ok";
        throw new Error("SQLITE_BUSY: database is locked");
      }
      return realGrants();
    });
    const invalidJoins = () =>
      bridge.log.records.filter((record) => record.msg === "server join with invalid params").length;
    bridge.core.registry.get("srv1")!.link!.connection.close(1001, "test: drop the server");
    await until(() => invalidJoins() >= 2, "joins without grants refused, and retried");
    expect(logged(errors, GRANTS_FAILED)).toBeGreaterThanOrEqual(2);
    expect(bridge.core.registry.get("srv1")!.devices.size).toBe(1);

    const before = logged(errors, GRANTS_FAILED);
    mode = "join reply";
    await until(
      () => mode === "ok" && logged(errors, GRANTS_FAILED) === before + 1,
      "the join reply's grants read failed and was logged",
    );
    expect(bridge.core.registry.get("srv1")!.devices.size).toBe(1);
    // The forwarder goes on after the failed read in its join reply...
    await forwarding(bridge, peer);
    // ...and the next change carries the grants.
    const next = await newCode(bridge, peer);
    await codeOnBridge(bridge, next, "grants sent at the next change");
  });
});
