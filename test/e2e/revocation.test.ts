// Key lifecycle (docs/security.md S5-S6): a revocation rotates the content key. A revoked device, holding every key
// it ever had and the bridge's whole replay buffer, opens nothing published after its revocation; the devices that
// remain lose no event while the key rotates under concurrent publishing.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/index.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { FAST_RECONNECT, until, untilLive } from "../client/support/stack.ts";
import { useStack } from "../support/use-stack.ts";
import { bufferedSealed } from "./capture.ts";
import { keysOf, openedIds } from "./device-keys.ts";

const scope = useStack();

describe("revocation", () => {
  it("S5: a revoked device given the bridge's whole buffer opens nothing published after its revocation", async () => {
    const stack = await scope.start();
    const stolen = await stack.pair("stolen phone");
    const kept = await stack.pair("kept phone");
    const client = scope.own(connect(kept, FAST_RECONNECT));
    const heard: AnyEvent[] = [];
    client.on("*", (event) => heard.push(event));
    await untilLive(client);
    const sessionId = await stack.createSession();
    await stack.append(sessionId, "before the revocation");
    const stolenKeys = await keysOf(stack, stolen);
    const lastBefore = stack.latestId();
    const revoked = await stack.server.request({ method: "DELETE", url: `/devices/${stolen.device_id}` });
    expect(revoked.status).toBe(200);
    await stack.append(sessionId, "AFTER-REVOCATION");
    await until(
      () => heard.some((event) => JSON.stringify(event).includes("AFTER-REVOCATION")),
      "the kept device read the later message",
    );
    await until(
      () => stack.bridge!.core.registry.get("srv1")!.lastId === stack.latestId(),
      "the bridge holds every event",
    );

    const sealed = bufferedSealed(stack.bridge!);
    const after = sealed.filter((envelope) => envelope.event_id > lastBefore);
    expect(after.length).toBeGreaterThan(0);
    // It could read what came before (it was paired then), and nothing after.
    expect(
      openedIds(
        sealed.filter((envelope) => envelope.event_id <= lastBefore),
        stolenKeys,
      ).length,
    ).toBeGreaterThan(0);
    expect(openedIds(after, stolenKeys)).toEqual([]);
    // Nor can it fetch the new key: its token is refused.
    const refused = await stack.server.request({ method: "GET", url: "/e2e/keys", token: stolen.device_token });
    expect(refused.status).toBe(401);
  });

  it("S6: key rotation under concurrent publishing loses no event for the devices that remain", async () => {
    const stack = await scope.start();
    const leaving = await stack.pair("leaving");
    const staying = [await stack.pair("a"), await stack.pair("b")];
    const heard = staying.map(() => [] as string[]);
    for (const [index, credentials] of staying.entries()) {
      const client = scope.own(connect(credentials, FAST_RECONNECT));
      client.on("*", (event) => heard[index]!.push(event.event_id));
      await untilLive(client);
    }
    const from = stack.latestId();
    const sessionId = await stack.createSession();
    const publishing = (async () => {
      for (let round = 0; round < 60; round++) await stack.append(sessionId, `message ${round}`);
    })();
    await until(() => stack.server.runtime.ctx.events.latestId > Number(from) + 40, "publishing under way");
    const { e2e } = stack.server.runtime.ctx;
    const owner = e2e.audiences.livePeople()[0]!;
    const keyBefore = e2e.contentKeys.current(owner).keyId;
    await stack.server.request({ method: "DELETE", url: `/devices/${leaving.device_id}` });
    expect(e2e.contentKeys.current(owner).keyId).toBeGreaterThan(keyBefore);
    await publishing;
    const expected = (await stack.storeEvents(from)).map((event) => event.event_id);
    for (const ids of heard) await until(() => ids.length >= expected.length, "every event delivered", 15_000);
    for (const ids of heard) expect(ids.filter((id) => id > from)).toEqual(expected);
  });
});
