// docs/bridge.md "Relay" B88: a long-poll over HTTP that a device started before its revocation does not deliver an
// event committed after it: the events route checks the token again when its wait ends (401).
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.ts";
import { useClosing } from "../support/use-closing.ts";
import { until } from "../bridge/helpers.ts";

const closing = useClosing();

describe("a long-poll across a revocation", () => {
  it("answers 401, not the event committed after the device was revoked (B88)", async () => {
    const server = closing.own(await startTestServer());
    await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(server.runtime.app.server.address() as AddressInfo).port}`;
    const { ctx } = server.runtime;
    const redeemed = ctx.pairing.redeem(ctx.pairing.createCode().code, "phone");
    if (!redeemed.ok) throw new Error("pairing failed");
    const since = String(ctx.events.latestId).padStart(20, "0");
    const poll = fetch(`${url}/events?since_id=${since}&wait_ms=20000`, {
      headers: { authorization: `Bearer ${redeemed.device_token}` },
    });
    await until(() => ctx.events.commits.waiting === 1, "the long-poll waits");
    expect((await server.request({ method: "DELETE", url: `/devices/${redeemed.device_id}` })).status).toBeLessThan(
      300,
    );
    expect((await server.request({ method: "POST", url: "/sessions", payload: {} })).status).toBe(201);
    const answer = await poll;
    const body = (await answer.json()) as { error?: { code: string }; events?: unknown[] };
    expect(answer.status).toBe(401);
    expect(body.error?.code).toBe("unauthorized");
  });
});
