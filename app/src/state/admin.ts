// The admin token, entered once on the server's own machine and kept in this browser (localStorage). Which server it
// talks to: the paired one, else the origin that served the app (the server serves it at /).
import { signal, type ReadonlySignal } from "@preact/signals";
import { z } from "zod";
import { AdminClient } from "../../../client/index.ts";
import type { Connection } from "./connection.ts";
import type { AppEnv } from "./env.ts";
import { readStored, removeStored, writeStored } from "./local-store.ts";

export const ADMIN_TOKEN_KEY = "chat-relay.admin-token";

export interface Admin {
  readonly token: ReadonlySignal<string | undefined>;
  save(token: string): void;
  forget(): void;
  /** A client for the admin routes, or undefined while no token is known. */
  client(): AdminClient | undefined;
}

export function createAdmin(env: AppEnv, connection: Connection): Admin {
  const token = signal<string | undefined>(readStored(env, ADMIN_TOKEN_KEY, z.string().min(1)));
  return {
    token,
    save(next) {
      token.value = next;
      writeStored(env, ADMIN_TOKEN_KEY, next);
    },
    forget() {
      token.value = undefined;
      removeStored(env, ADMIN_TOKEN_KEY);
    },
    client() {
      if (!token.value) return undefined;
      const serverUrl = connection.paired.value?.credentials.server_url ?? env.location.origin;
      return new AdminClient({ serverUrl, adminToken: token.value, fetch: env.fetch });
    },
  };
}
