// A deleted chat leaves the bridge's replay and every key given afterwards (docs/security.md S58, docs/bridge.md S12):
// with only encrypting devices paired the bridge cannot read the sealed session_deleted, so the server names the
// chat's events in `forget` pushes; and the deletion rotates the content key, withholding every older key, so a
// device paired after the deletion can open none of the chat's events, even from a copy of the replay taken before.
import { afterEach, expect, it } from "vitest";
import { openContentKey, openEvent } from "../../client/wire/crypto/index.ts";
import { connect, type Credentials } from "../../client/index.ts";
import { contentKeysAnswerSchema, type SealedEvent } from "../../client/wire/e2e.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { FAST_RECONNECT, type Stack, until, untilLive } from "../client/support/stack.ts";
import { useStack } from "../support/use-stack.ts";
import { bufferedSealed } from "./capture.ts";
import { joinOnce, phoenixSocket, runCleanups } from "../bridge/helpers.ts";

const scope = useStack();
afterEach(runCleanups);

async function keysOf(s: Stack, credentials: Credentials): Promise<Uint8Array[]> {
  const answer = await s.server.request({ method: "GET", url: "/e2e/keys", token: credentials.device_token });
  expect(answer.status).toBe(200);
  return contentKeysAnswerSchema
    .parse(answer.json)
    .keys.map(({ key_id, box }) =>
      openContentKey(credentials.e2e!.device_secret_key, "srv1", credentials.device_id, key_id, box),
    );
}

/** The texts `keys` open of `sealed`. */
function opened(sealed: SealedEvent[], keys: Uint8Array[]): string[] {
  return sealed.flatMap((envelope) =>
    keys.flatMap((key) => {
      try {
        return [openEvent(key, "srv1", envelope)];
      } catch {
        return [];
      }
    }),
  );
}

it("S58: a device paired after a deletion is replayed none of the chat, and no key it is given opens any of it", async () => {
  const stack = await scope.start();
  const old = await stack.pair("old phone");
  const client = scope.own(connect(old, FAST_RECONNECT));
  const heard: AnyEvent[] = [];
  client.on("*", (event) => heard.push(event));
  await untilLive(client);
  const start = stack.latestId();
  const doomed = await stack.createSession();
  for (const n of [1, 2, 3]) await stack.append(doomed, `DELETED-SECRET-${n}`);
  const kept = await stack.createSession();
  await stack.append(kept, "kept words");
  const bridgeHolds = () => stack.bridge!.core.registry.get("srv1")!.lastId === stack.latestId();
  await until(bridgeHolds, "the bridge holds every event");
  const doomedIds = (await stack.storeEvents(start)).filter((e) => e.session_id === doomed).map((e) => e.event_id);
  const copyBefore = bufferedSealed(stack.bridge!).filter((envelope) => doomedIds.includes(envelope.event_id));
  expect(copyBefore.length).toBe(doomedIds.length);
  expect(opened(copyBefore, await keysOf(stack, old)).join()).toContain("DELETED-SECRET-3");

  expect((await stack.server.request({ method: "DELETE", url: `/sessions/${doomed}` })).status).toBe(204);
  await until(bridgeHolds, "the bridge holds the deletion");
  await until(() => heard.some((e) => e.type === "session_deleted"), "the old phone heard the deletion");

  // The bridge's replay holds none of the chat's events any more; the other chat's stay.
  const replay = bufferedSealed(stack.bridge!).map((envelope) => envelope.event_id);
  expect(replay.filter((id) => doomedIds.includes(id))).toEqual([]);
  expect(replay.some((id) => id > doomedIds.at(-1)!)).toBe(true);

  // A device paired now, joining from before the chat, is replayed none of it, and its keys open none of the copy.
  const late = await stack.pair("new phone");
  const socket = phoenixSocket(stack.bridgeUrl, { authToken: late.device_token });
  const channel = socket.channel("events:server:srv1", {
    since_id: start,
    epoch: stack.server.runtime.ctx.events.epoch,
  });
  const replayed: SealedEvent[] = [];
  channel.on("sealed_event", (envelope: SealedEvent) => void replayed.push(envelope));
  const joined = await joinOnce(channel);
  expect(joined.response).toMatchObject({ replay: "complete" });
  expect(joined.response.replayed).toBeGreaterThan(0);
  await until(() => replayed.length === (joined.response.replayed as number), "the replay");
  expect(replayed.map((envelope) => envelope.event_id).filter((id) => doomedIds.includes(id))).toEqual([]);
  const lateKeys = await keysOf(stack, late);
  expect(opened(copyBefore, lateKeys)).toEqual([]);
  expect(opened(replayed, lateKeys).join()).not.toContain("DELETED-SECRET");
});
