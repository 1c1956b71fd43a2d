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
    expect(withJsonBody({ status: 200, body: "aGk=", body_encoding: "base64" })).toBe('{"status":200,"body":"aGk=","body_encoding":"base64"}');
  });

  it("encodes a frame as phoenix does, splicing a JsonText payload", () => {
    const frame = { join_ref: "1", ref: null, topic: "server:abc", event: "api_result" };
    const payload = { request_id: "r1", status: 200, body };
    let plain = "";
    encodeFrame({ ...frame, payload }, (encoded) => (plain = encoded));
    expect(plain).toBe(JSON.stringify(["1", null, "server:abc", "api_result", payload]));
    let spliced = "";
    encodeFrame({ ...frame, payload: new JsonText(withJsonBody({ request_id: "r1", status: 200, body: new JsonText(JSON.stringify(body)) })) }, (encoded) => (spliced = encoded));
    expect(spliced).toBe(plain);
  });
});
