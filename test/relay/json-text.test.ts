// A relayed route's body goes into the api_result frame (and a sealed answer) as the text Fastify serialized
// (server/forwarder/json-text.ts): the frame is exactly what serializing the parsed body would give.
import { describe, expect, it } from "vitest";
import { JsonText, encodeFrame, withJsonBody } from "../../server/forwarder/json-text.ts";

const body = { session_id: "s1", messages: [{ role: "user", content: 'quote " and \\ and \u2028 and é' }], version: 3 };

describe("JSON text spliced as is (B163)", () => {
  it("gives the same JSON as serializing the parsed body, with and without other fields", () => {
    const text = JSON.stringify(body);
    const withId = { request_id: "r1", status: 200, body: new JsonText(text) };
    expect(JSON.parse(withJsonBody(withId))).toEqual({ request_id: "r1", status: 200, body });
    expect(withJsonBody(withId)).toBe(JSON.stringify({ request_id: "r1", status: 200, body }));
    expect(withJsonBody({ body: new JsonText("null") })).toBe('{"body":null}');
    expect(withJsonBody({ request_id: "r2", reason: "too_large" })).toBe('{"request_id":"r2","reason":"too_large"}');
    expect(withJsonBody({ status: 200, body: "aGk=", body_encoding: "base64" })).toBe(
      '{"status":200,"body":"aGk=","body_encoding":"base64"}',
    );
  });

  it("encodes a frame as phoenix does, splicing a JsonText payload", () => {
    const frame = { join_ref: "1", ref: null, topic: "server:abc", event: "api_result" };
    const payload = { request_id: "r1", status: 200, body };
    let plain = "";
    encodeFrame({ ...frame, payload }, (encoded) => (plain = encoded));
    expect(plain).toBe(JSON.stringify(["1", null, "server:abc", "api_result", payload]));
    let spliced = "";
    encodeFrame(
      {
        ...frame,
        payload: new JsonText(
          withJsonBody({ request_id: "r1", status: 200, body: new JsonText(JSON.stringify(body)) }),
        ),
      },
      (encoded) => (spliced = encoded),
    );
    expect(spliced).toBe(plain);
  });
});

describe("a route that answers something else under a JSON type (B163)", () => {
  it("fails that call with 500 internal_error instead of sending a frame the bridge cannot decode", async () => {
    const { default: Fastify } = await import("fastify");
    const { startTestServer } = await import("../support/server.ts");
    const { runRelayedCall } = await import("../../server/forwarder/api-relay.ts");
    const server = await startTestServer();
    const broken = Fastify();
    broken.get("/broken", async (_request, reply) => reply.type("application/json").send("not json"));
    broken.get("/fine", async () => ({ ok: true }));
    await broken.ready();
    try {
      const call = { request_id: "r1", device_id: "dev_x", method: "GET" as const };
      expect(await runRelayedCall(server.runtime.ctx, broken, { ...call, path: "/broken" })).toMatchObject({
        request_id: "r1",
        status: 500,
        body: { error: { code: "internal_error" } },
      });
      const fine = await runRelayedCall(server.runtime.ctx, broken, { ...call, path: "/fine" });
      expect(withJsonBody(fine!)).toBe('{"request_id":"r1","status":200,"body":{"ok":true}}');
    } finally {
      await broken.close();
      await server.runtime.close();
    }
  });
});
