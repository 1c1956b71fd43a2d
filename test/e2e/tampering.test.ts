// Tampered, moved, wrongly keyed and replayed ciphertext is refused, reported and never delivered (docs/security.md
// S7-S9). A bridge that alters what it relays gets its forgery dropped: the library reports it through onProblem,
// counts it, and delivers the real event fetched over HTTP in its place; the server refuses a sealed call that does
// not open or that it already ran.
import { afterEach, describe, expect, it } from "vitest";
import { sealRequest, sharedKey, publicKeyOf } from "../../client/wire/crypto/index.ts";
import { connect, type ClientProblem } from "../../client/index.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { EventTopic } from "../../bridge/fanout/topic.ts";
import type { BufferedEvent } from "../../bridge/fanout/replay-buffer.ts";
import { FAST_RECONNECT, until, untilLive } from "../client/support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();
const broadcast = EventTopic.prototype.broadcast;
afterEach(() => {
  EventTopic.prototype.broadcast = broadcast;
});

/** Makes the bridge rewrite each sealed event it relays with `forge` (a malicious or broken bridge). */
function forgeSealed(
  forge: (sealed: Record<string, unknown>, previous: Record<string, unknown> | undefined) => Record<string, unknown>,
): void {
  let previous: Record<string, unknown> | undefined;
  EventTopic.prototype.broadcast = function (this: EventTopic, event: BufferedEvent) {
    const sealedForm = event.forms.find((form) => form.mode === "e2e");
    if (sealedForm === undefined) return broadcast.call(this, event);
    const sealed = JSON.parse(sealedForm.json) as Record<string, unknown>;
    const forged = forge(sealed, previous);
    previous = sealed;
    const forms = event.forms.map((form) => (form === sealedForm ? { ...form, json: JSON.stringify(forged) } : form));
    return broadcast.call(this, { ...event, forms });
  };
}

/** Flips one character of a base64url text (the tag or the ciphertext no longer matches). */
function flipped(text: string): string {
  const at = Math.floor(text.length / 2);
  return text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
}

async function deliveredWithForgery(forge: Parameters<typeof forgeSealed>[0]) {
  const stack = await scope.start();
  const credentials = await stack.pair();
  const client = scope.own(connect(credentials, FAST_RECONNECT));
  const heard: AnyEvent[] = [];
  const problems: ClientProblem[] = [];
  client.on("*", (event) => heard.push(event));
  client.onProblem((problem) => problems.push(problem));
  await untilLive(client);
  const from = stack.latestId();
  const sessionId = await stack.createSession();
  forgeSealed(forge);
  for (let index = 0; index < 5; index++) await stack.append(sessionId, `message ${index}`);
  const expected = await stack.storeEvents(from);
  await until(() => heard.length >= expected.length, "every event delivered");
  return { heard, expected, problems, refused: client.sealedRefused };
}

describe("a bridge that alters sealed events", () => {
  it("S7: altered ciphertext is refused and reported; listeners get the real events, in order", async () => {
    const { heard, expected, problems, refused } = await deliveredWithForgery((sealed) => ({
      ...sealed,
      ciphertext: flipped(sealed.ciphertext as string),
    }));
    expect(heard).toEqual(expected);
    expect(refused).toBeGreaterThanOrEqual(5);
    expect(problems.some((problem) => problem.message.startsWith("a sealed event did not open"))).toBe(true);
  });

  it("S7: a ciphertext moved to another event id, or relabelled with another key id, does not open", async () => {
    // Each event gets the previous event's ciphertext: a replay of real ciphertext under the wrong id.
    const moved = await deliveredWithForgery((sealed, previous) =>
      previous ? { ...sealed, nonce: previous.nonce, ciphertext: previous.ciphertext } : sealed,
    );
    expect(moved.heard).toEqual(moved.expected);
    expect(moved.refused).toBeGreaterThanOrEqual(4);
    await scope.close();
    EventTopic.prototype.broadcast = broadcast;
    const relabelled = await deliveredWithForgery((sealed) => ({ ...sealed, key_id: (sealed.key_id as number) + 1 }));
    expect(relabelled.heard).toEqual(relabelled.expected);
    expect(relabelled.refused).toBeGreaterThanOrEqual(5);
  });
});

describe("sealed relayed calls", () => {
  it("S8: one the server already ran is refused 409 (a bridge replaying a capture), also after a restart; one altered is refused 400; all counted", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const { device_secret_key, server_key } = credentials.e2e!;
    const key = sharedKey(device_secret_key, server_key, "relay", server_key, publicKeyOf(device_secret_key));
    const call = JSON.stringify({ id: "replayed-call-0123456789", ts: Date.now(), method: "GET", path: "/sessions" });
    const sealed = sealRequest(key, "srv1", credentials.device_id, call);
    const send = (body: unknown) =>
      stack.server.request({
        method: "POST",
        url: "/e2e/relay",
        payload: body as object,
        token: credentials.device_token,
      });
    expect((await send(sealed)).status).toBe(200);
    const replayed = await send(sealed);
    expect(replayed.status).toBe(409);
    expect(replayed.json.error.code).toBe("sealed_request_replayed");
    const altered = await send({ ...sealed, ciphertext: flipped(sealed.ciphertext) });
    expect(altered.status).toBe(400);
    expect(altered.json.error.code).toBe("sealed_request_invalid");
    expect(stack.server.runtime.ctx.e2e.rejections).toEqual({ tampered: 1, replayed: 1, stale: 0 });
    // A restart forgets the ids but not the device's newest call time: the capture is still refused.
    await stack.stopServer();
    await stack.startServer();
    const afterRestart = await send(sealed);
    expect(afterRestart.status).toBe(400);
    expect(afterRestart.json.error.code).toBe("sealed_request_invalid");
    expect(stack.server.runtime.ctx.e2e.rejections.stale).toBe(1);
  });
});
