// The registry as a bridge sets it up, whichever shared state holds its records (the single node's file, the
// cluster's Redis): replay limits from the config, and a grant that names another server's token hash logged as a
// warning (the registry keeps serving; the log is how an operator hears of it).
import type { BridgeConfig } from "../config.ts";
import type { BridgeLogger } from "../log.ts";
import type { RegistryStore } from "./durable-store.ts";
import { Registry } from "./registry.ts";

export function bridgeRegistry(store: RegistryStore, config: BridgeConfig, log: BridgeLogger): Registry {
  return new Registry(
    store,
    { events: config.replayEvents, bytes: config.replayBytes },
    {
      onForeignGrant: ({ serverId, deviceId, owner }) =>
        log.warn(
          {
            server_id: serverId,
            device_id: deviceId,
            owner,
          },
          "grant lists a token hash another server grants too",
        ),
    },
  );
}
