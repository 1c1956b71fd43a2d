// End-to-end encryption's device routes (docs/security.md): the newest content keys sealed to the calling device's
// public key, and a sealed relayed call answered sealed (its body is opened and checked by the server itself: a body
// that is not {nonce, ciphertext} is sealed_request_invalid, not invalid_input).
import { contentKeysAnswerSchema, E2E_RELAY_PATH, sealedSchema } from "../e2e.ts";
import { defineRoute } from "./route.ts";

export const contentKeysRoute = defineRoute("GET", "/e2e/keys", () => ({
  answer: contentKeysAnswerSchema,
  errors: ["not_e2e_device"],
}));

export const sealedCallRoute = defineRoute("POST", E2E_RELAY_PATH, () => ({
  rawBody: true,
  answer: sealedSchema,
  errors: ["not_e2e_device", "sealed_request_invalid", "sealed_request_replayed"],
}));
