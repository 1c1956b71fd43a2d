// A push service that takes a push and never answers (docs/testing.md "Faults", docs/push.md): the chat does not
// wait for it. While that push is still open on the push service, a reply streams and completes, and notifications
// are published and read, as if push were not configured.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { PushHarness } from "../push/support/harness.ts";
import { createSession, send, waitForEvent } from "../runner/helpers.ts";

/** An endpoint that reads each push and never answers it; `open` are the pushes it holds. */
async function hangingPushService(): Promise<{ url: string; open: IncomingMessage[]; close(): Promise<void> }> {
  const open: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req) => void open.push(req));
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/push/`,
    open,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A browser's subscription keys: an uncompressed P-256 public key and 16 random auth bytes, base64url. */
function subscriptionKeys() {
  const { publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const jwk = publicKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]);
  return { p256dh: point.toString("base64url"), auth: randomBytes(16).toString("base64url") };
}

let h: PushHarness | undefined;
let backend: ScriptedBackend | undefined;
let hanging: Awaited<ReturnType<typeof hangingPushService>> | undefined;
afterEach(async () => {
  await hanging?.close();
  await h?.close();
  await backend?.close();
  h = backend = hanging = undefined;
});

describe("a push service that hangs", () => {
  it("slows no chat: a reply completes and notifications are read while its push is still open", async () => {
    backend = await startScriptedBackend();
    hanging = await hangingPushService();
    h = await PushHarness.start(
      {},
      { providers: { default: { provider: "reference_compatible", model: "scripted", base_url: backend.url } } },
    );
    const pairing = h.server.runtime.ctx.pairing;
    const device = pairing.redeem(pairing.createCode().code, "phone");
    if (!device.ok) throw new Error(device.reason);
    const subscribed = await h.server.request({
      method: "POST",
      url: "/push/subscriptions",
      token: device.device_token,
      payload: { endpoint: `${hanging.url}phone`, keys: subscriptionKeys() },
    });
    expect(subscribed.status, subscribed.text).toBe(201);

    const sid = await h.newSession();
    h.api.session(sid).create({ key: "build", severity: "warning", title: "Build failed" });
    while (hanging.open.length === 0) await new Promise((resolve) => setImmediate(resolve));

    backend.script(dialectStream("openai", { content: "All fine." }));
    const rid = await send(h.server, sid, { content: "status?" });
    const events = await waitForEvent(h.server, rid);
    expect(events.find((e) => e.type === "final")).toMatchObject({ messages: [{ content: "All fine." }] });
    h.api.session(sid).create({ key: "deploy", severity: "warning", title: "Deploy waiting" });
    const listed = await h.server.request({ method: "GET", url: `/sessions/${sid}/notifications` });
    expect(listed.json.map((r: { key: string }) => r.key).sort()).toEqual(["build", "deploy"]);
    // All of it while the first push is still unanswered.
    expect(hanging.open[0]!.complete).toBe(true);
    expect(hanging.open[0]!.socket.destroyed).toBe(false);
    expect(await createSession(h.server)).toBeTruthy();
  });
});
