// Builds the push service from the runtime's parts when the config has `push` (docs/push.md); undefined otherwise.
// The VAPID keys are made here at the first start with push configured.
import type { FastifyBaseLogger } from "fastify";
import { sessionTitle } from "../../client/wire/messages.ts";
import type { Clock } from "../clock.ts";
import type { PushConfig } from "../config/push.ts";
import type { Db } from "../db/database.ts";
import type { EventStore } from "../events/event-store.ts";
import { writers } from "../people/access.ts";
import { ChatAudiences } from "../people/chat-audiences.ts";
import type { PairingService } from "../pairing/pairing-service.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { PushService } from "./push-service.ts";
import { ensureVapidKeys } from "./vapid-keys.ts";

export interface PushParts {
  config: PushConfig | undefined;
  dataDir: string;
  db: Db;
  events: EventStore;
  pairing: PairingService;
  sessions: SessionService;
  clock: Clock;
  log: FastifyBaseLogger;
  shutdown: AbortSignal;
}

export function createPushService(parts: PushParts): PushService | undefined {
  const { config, sessions } = parts;
  if (!config) return undefined;
  const audiences = new ChatAudiences(parts.db);
  const push = new PushService({
    ...parts,
    chatWriters: (sessionId) => {
      const audience = audiences.of(sessionId);
      return audience === undefined ? [] : writers(audience);
    },
    config,
    keys: ensureVapidKeys(parts.dataDir),
    chatTitle: (sessionId) => {
      try {
        return sessionTitle(sessions.get(sessionId));
      } catch {
        return undefined;
      }
    },
  });
  // The device's last push goes out before its subscriptions are forgotten (push-service.ts revoked()).
  parts.pairing.onRevoke((deviceId) => push.revoked(deviceId));
  return push;
}
