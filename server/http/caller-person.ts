// Who a call acts for, read from its credential in one place (docs/settings.md "Personal"). There are no people yet:
// every device and the admin token act for one person, the owner, so personal settings and prompts are the owner's.
// When people come, this is the one function that changes: a device's person, and whether that person is an admin.
import type { FastifyRequest } from "fastify";
import { requireAdmin } from "./auth.ts";

/** The one person while the server has no people. */
export const OWNER_PERSON_ID = "owner";

export function callerPerson(_request: FastifyRequest): string {
  return OWNER_PERSON_ID;
}

/** The person whose chat a session is: today the owner's, every one. */
export function sessionPerson(_sessionId: string): string {
  return OWNER_PERSON_ID;
}

export interface AdminCaller {
  /** The admin token itself made the call (it may change what runs on the server: docs/settings.md "Locked"). */
  adminToken: boolean;
  who: string;
}

/** Refuses a caller without the admin role (today: without the admin token); says who it is for the log. */
export function requireAdminCaller(request: FastifyRequest): AdminCaller {
  requireAdmin(request);
  const principal = request.principal;
  return {
    adminToken: principal?.kind === "admin",
    who: principal?.kind === "device" ? `device ${principal.deviceId}` : "admin token",
  };
}
