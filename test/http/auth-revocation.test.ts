// The authenticator remembers live devices (server/auth/authenticator.ts): a token that just worked, over HTTP and as
// a relayed call, stops working the moment its device is revoked, and an unknown token is never remembered.
import { describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

describe("authentication after a revocation (H5)", () => {
  it("refuses a token and a relayed call at once after its device is revoked, though both were just accepted", async () => {
    const server = closing.own(await startTestServer());
    const { ctx } = server.runtime;
    const paired = ctx.pairing.redeem(ctx.pairing.createCode().code, "phone");
    if (!paired.ok) throw new Error("pairing failed");
    const other = ctx.pairing.redeem(ctx.pairing.createCode().code, "tablet");
    if (!other.ok) throw new Error("pairing failed");
    const relayed = { relayed: ctx.auth.relayPass(paired.device_id) };
    for (let i = 0; i < 2; i++) {
      expect((await server.request({ method: "GET", url: "/sessions", token: paired.device_token })).status).toBe(200);
      expect(ctx.auth.authenticate(relayed)).toMatchObject({ kind: "device", device_id: paired.device_id });
    }
    expect((await server.request({ method: "DELETE", url: `/devices/${paired.device_id}` })).status).toBe(200);
    const after = await server.request({ method: "GET", url: "/sessions", token: paired.device_token });
    expect(after.status).toBe(401);
    expect(ctx.auth.authenticate(relayed)).toBeUndefined();
    // The other device is unaffected.
    expect((await server.request({ method: "GET", url: "/sessions", token: other.device_token })).status).toBe(200);
    expect(ctx.auth.authenticate({ relayed: ctx.auth.relayPass(other.device_id) })).toMatchObject({
      kind: "device",
      device_id: other.device_id,
    });
  });

  it("refuses the token even when a later step of the revocation fails (the content key's rotation)", async () => {
    const server = closing.own(await startTestServer());
    const { ctx } = server.runtime;
    const paired = ctx.pairing.redeem(ctx.pairing.createCode().code, "phone");
    if (!paired.ok) throw new Error("pairing failed");
    expect((await server.request({ method: "GET", url: "/sessions", token: paired.device_token })).status).toBe(200);
    ctx.e2e.contentKeys.rotate = () => {
      throw new Error("disk full");
    };
    expect(() => ctx.pairing.revoke(paired.device_id)).toThrow("disk full");
    expect((await server.request({ method: "GET", url: "/sessions", token: paired.device_token })).status).toBe(401);
    expect(ctx.auth.authenticate({ relayed: ctx.auth.relayPass(paired.device_id) })).toBeUndefined();
  });

  it("accepts no token it does not know, however often it is tried", async () => {
    const server = closing.own(await startTestServer());
    for (let i = 0; i < 3; i++)
      expect((await server.request({ method: "GET", url: "/sessions", token: `nope-${i % 2}` })).status).toBe(401);
    const { auth } = server.runtime.ctx;
    expect(auth.authenticate({ relayed: auth.relayPass("dev_unknown") })).toBeUndefined();
  });
});
