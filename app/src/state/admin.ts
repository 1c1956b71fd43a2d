// The admin token, entered once on the server's own machine and kept in this browser (localStorage). Which
// server it talks to: the paired one, else the origin that served the app (the server serves it at /).
import { signal } from "@preact/signals";
import { z } from "zod";
import { AdminApi } from "../api/admin-api.ts";
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

export function adminApi(): AdminApi | undefined {
  const token = adminToken.value;
  if (!token) return undefined;
  return new AdminApi(paired.value?.credentials.server_url ?? location.origin, token);
}

/** The link a phone opens by scanning: the server's pair_url, or this app's own pairing route. */
export function pairUrlOf(code: { code: string; bridge_url: string; pair_url?: string }): string {
  if (code.pair_url) return code.pair_url;
  const query = new URLSearchParams({ code: code.code, bridge: code.bridge_url });
  return `${location.origin}${location.pathname}#/pair?${query}`;
}
