// The admin token, entered once on the server's own machine and kept in this browser (localStorage). Which
// server it talks to: the paired one, else the origin that served the app (the server serves it at /).
import { signal } from "@preact/signals";
import { z } from "zod";
import { AdminClient } from "../../../client/index.ts";
import { paired } from "./connection.ts";
import { readStored, removeStored, writeStored } from "./local-store.ts";

const KEY = "chat-relay.admin-token";
export const adminToken = signal<string | undefined>(readStored(KEY, z.string().min(1)));

export function saveAdminToken(token: string): void {
  adminToken.value = token;
  writeStored(KEY, token);
}

export function forgetAdminToken(): void {
  adminToken.value = undefined;
  removeStored(KEY);
}

export function adminClient(): AdminClient | undefined {
  const adminToken = adminTokenValue();
  if (!adminToken) return undefined;
  return new AdminClient({ serverUrl: paired.value?.credentials.server_url ?? location.origin, adminToken });
}

function adminTokenValue(): string | undefined {
  return adminToken.value;
}
