// Every sealed envelope is bound by its associated data to every id it belongs to (docs/security.md): the same
// ciphertext presented under any other id does not open. Each case changes exactly one id, so dropping that id from
// the associated data fails exactly its case (no later check, such as comparing the opened event's own id, is
// reached here: the envelope functions are called directly).
import { describe, expect, it } from "vitest";
import * as crypto from "../../client/wire/crypto/index.ts";

const key = crypto.randomBytes(32);
const SERVER = "srv-1";
const EVENT_ID = "00000000000000000042";
const EVENT = JSON.stringify({ event_id: EVENT_ID, type: "partial" });

describe("an event envelope", () => {
  const sealed = crypto.sealEvent(key, 3, SERVER, EVENT_ID, EVENT);

  it("opens where it was sealed", () => {
    expect(crypto.openEvent(key, SERVER, sealed)).toBe(EVENT);
  });

  it.each([
    ["another event id", { ...sealed, event_id: "00000000000000000043" }, SERVER],
    ["another content key id", { ...sealed, key_id: 4 }, SERVER],
    ["another server", sealed, "srv-2"],
  ])("does not open under %s", (_name, envelope, server) => {
    expect(() => crypto.openEvent(key, server, envelope)).toThrow(crypto.CryptoError);
  });
});

describe("a relayed request and its answer", () => {
  const request = crypto.sealRequest(key, SERVER, "dev-1", "{}");
  const answer = crypto.sealResponse(key, SERVER, "dev-1", "call-1", "{}");

  it("open where they were sealed", () => {
    expect(crypto.openRequest(key, SERVER, "dev-1", request)).toBe("{}");
    expect(crypto.openResponse(key, SERVER, "dev-1", "call-1", answer)).toBe("{}");
  });

  it.each([
    ["another device", () => crypto.openRequest(key, SERVER, "dev-2", request)],
    ["another server", () => crypto.openRequest(key, "srv-2", "dev-1", request)],
    ["an answer opened as a request", () => crypto.openRequest(key, SERVER, "dev-1", answer)],
    ["an answer to another call", () => crypto.openResponse(key, SERVER, "dev-1", "call-2", answer)],
    ["an answer for another device", () => crypto.openResponse(key, SERVER, "dev-2", "call-1", answer)],
  ])("do not open for %s", (_name, opening) => {
    expect(opening).toThrow(crypto.CryptoError);
  });
});

describe("a content key sealed to a device", () => {
  const device = crypto.generateKeyPair();
  const box = crypto.sealContentKey(device.publicKey, SERVER, "dev-1", 7, key);

  it("opens for that device, server and key id only", () => {
    expect(crypto.openContentKey(device.secretKey, SERVER, "dev-1", 7, box)).toEqual(key);
    expect(() => crypto.openContentKey(device.secretKey, SERVER, "dev-1", 8, box)).toThrow(crypto.CryptoError);
    expect(() => crypto.openContentKey(device.secretKey, SERVER, "dev-2", 7, box)).toThrow(crypto.CryptoError);
    expect(() => crypto.openContentKey(device.secretKey, "srv-2", "dev-1", 7, box)).toThrow(crypto.CryptoError);
  });
});
