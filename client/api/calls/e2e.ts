// The typed call of the end-to-end encryption route (client/wire/routes/e2e.ts).
import type { SealedContentKey } from "../../wire/e2e.ts";
import { contentKeysRoute } from "../../wire/routes/e2e.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class E2eCalls extends RouteCaller {
  /** The content keys sealed to this device's public key (end-to-end encryption). */
  async contentKeys(options: { signal?: AbortSignal } = {}): Promise<SealedContentKey[]> {
    return (await this.call(contentKeysRoute, {}, options)).keys;
  }
}
