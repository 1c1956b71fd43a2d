// The close-code rule is one table (client/wire/close-codes.ts, docs/bridge.md B41): docs/bridge.md shows exactly that
// table, and the client library's bridge connection does what each row says when a real bridge closes its socket with
// that code: reconnects and rejoins, stays away (socket dropped, HTTP goes on), or stops and gives up its token.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { BridgeConnection, type BridgeHandlers, type WebSocketConstructor } from "../../client/transport/bridge.ts";
import { BRIDGE_CLOSE, CLOSE_CODES, closeCodeRule, type CloseCodeName } from "../../client/wire/close-codes.ts";
import { device, fakeServer, runCleanups, testBridge, until } from "./helpers.ts";

afterEach(runCleanups);

const phone = device("dev_phone");

/** The rows of docs/bridge.md's close-code table. */
function documentedRows(): string[][] {
  const page = readFileSync(new URL("../../docs/bridge.md", import.meta.url), "utf8");
  const section = page.slice(page.indexOf("## Close codes and why"), page.indexOf("## States"));
  return section
    .split("\n")
    .filter((line) => /^\| \d{4} \|/.test(line))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** A library bridge connection to a real bridge, with what it reported. */
async function libraryConnection() {
  const bridge = await testBridge();
  await fakeServer(bridge.url, { devices: [phone.grant] });
  const seen = { joins: 0, downs: [] as string[], refusals: [] as string[] };
  const handlers: BridgeHandlers = {
    joined: () => void seen.joins++,
    down: (reason) => void seen.downs.push(reason),
    event: () => undefined,
    refused: (reason) => void seen.refusals.push(reason),
    malformed: () => undefined,
  };
  const connection = new BridgeConnection(
    {
      url: bridge.url,
      serverId: "srv1",
      token: phone.token,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      sinceId: () => undefined,
      reconnectAfterMs: () => 20,
    },
    handlers,
  );
  connection.connect();
  await until(() => seen.joins === 1, "the library joined");
  const closeWith = (code: number) => bridge.core.registry.get("srv1")!.topic.closeAll(code, "test");
  /** Whether the library still holds a phoenix socket (it drops it when it gives up on the bridge). */
  const holdsSocket = () => (connection as unknown as { socket: object | undefined }).socket !== undefined;
  return { connection, seen, closeWith, holdsSocket };
}

describe("the close-code rule", () => {
  it("docs/bridge.md shows exactly the table the code uses", () => {
    const expected = Object.entries(CLOSE_CODES).map(([name, rule]) => [
      String(rule.code),
      `\`${name}\``,
      rule.meaning,
      rule.reconnect ? "yes" : "no",
      rule.forgetToken ? "yes" : "no",
    ]);
    expect(documentedRows()).toEqual(expected);
  });

  it("names each code once; BRIDGE_CLOSE is the table's name → code map; an unknown code means come back", () => {
    const codes = Object.values(CLOSE_CODES).map((rule) => rule.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const [name, rule] of Object.entries(CLOSE_CODES)) expect(BRIDGE_CLOSE[name as CloseCodeName]).toBe(rule.code);
    // The bridge never strands stock clients with a clean 1000, and what it sends a revoked device says forget.
    expect(closeCodeRule(4001)).toMatchObject({ reconnect: false, forgetToken: true });
    expect(closeCodeRule(4999)).toMatchObject({ code: 4999, reconnect: true, forgetToken: false });
    expect(closeCodeRule(undefined)).toMatchObject({ reconnect: true, forgetToken: false });
  });

  // 1006 is never sent in a close frame (ws refuses it): the client sees it when the link drops.
  const sendable = Object.entries(CLOSE_CODES).filter(([, rule]) => rule.code !== CLOSE_CODES.abnormal.code);
  it.each(sendable)("the library follows the row of %s when the bridge closes with it", async (_name, rule) => {
    const { seen, closeWith, holdsSocket } = await libraryConnection();
    closeWith(rule.code);
    if (rule.forgetToken) {
      await until(() => seen.refusals.length === 1, "the library stopped");
      expect(seen.refusals).toEqual([rule.code === BRIDGE_CLOSE.deviceRevoked ? "revoked" : "unauthorized"]);
      expect(holdsSocket()).toBe(false);
    } else if (rule.reconnect) {
      await until(() => seen.joins === 2, "the library rejoined");
      expect(seen.downs).toContain(`closed:${rule.code}`);
      expect(seen.refusals).toEqual([]);
    } else {
      await until(() => seen.downs.includes(`closed:${rule.code}`), "the library reported the bridge down");
      expect(holdsSocket()).toBe(false);
      expect(seen.refusals).toEqual([]);
    }
  });
});
