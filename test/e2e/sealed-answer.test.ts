// The sealed answer to a relayed call is JSON text put together around its base64url (server/e2e/sealed-calls.ts
// SealedJson), spliced into the bridge frame as is: it must be exactly what serializing the sealed object gives, and
// the HTTP route of the same path must answer that object too (docs/security.md S44).
import { describe, expect, it } from "vitest";
import {
  cipherInUse,
  openResponse,
  randomInUse,
  publicKeyOf,
  sealRequest,
  sharedKey,
  type Sealed,
} from "../../client/wire/crypto/index.ts";
import { SealedJson } from "../../server/e2e/sealed-calls.ts";
import { withJsonBody } from "../../server/forwarder/json-text.ts";
import { Stack } from "../client/support/stack.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

describe("sealed answers (S44)", () => {
  it("are sealed with OpenSSL's cipher and pooled random bytes on the server (both seams' optimisations)", async () => {
    await import("../../server/e2e/end-to-end.ts");
    expect(cipherInUse()).toBe("openssl");
    expect(randomInUse()).toBe("pooled");
  });

  it("splice into a frame as exactly the JSON of the sealed object", () => {
    const sealed: Sealed = { nonce: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", ciphertext: "q83v-_8A" };
    const text = new SealedJson(sealed);
    expect(text.json).toBe(JSON.stringify(sealed));
    expect(JSON.stringify(text)).toBe(JSON.stringify(sealed));
    expect(withJsonBody({ request_id: "r1", status: 200, body: text })).toBe(
      JSON.stringify({ request_id: "r1", status: 200, body: sealed }),
    );
  });

  it("over HTTP, answer the sealed object, which opens to the route's answer", async () => {
    const stack = closing.own(await Stack.start());
    const credentials = await stack.pair();
    const { device_secret_key, server_key } = credentials.e2e!;
    const key = sharedKey(device_secret_key, server_key, "relay", server_key, publicKeyOf(device_secret_key));
    const id = "sealed-answer-0123456789";
    const sealed = sealRequest(
      key,
      "srv1",
      credentials.device_id,
      JSON.stringify({ id, ts: Date.now(), method: "GET", path: "/sessions" }),
    );
    const answer = await stack.server.request({
      method: "POST",
      url: "/e2e/relay",
      payload: sealed,
      token: credentials.device_token,
    });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json as object).sort()).toEqual(["ciphertext", "nonce"]);
    const opened = JSON.parse(openResponse(key, "srv1", credentials.device_id, id, answer.json as Sealed)) as {
      status: number;
      body: unknown;
    };
    expect(opened.status).toBe(200);
    expect(Array.isArray((opened.body as { sessions?: unknown }).sessions)).toBe(true);
  });
});
