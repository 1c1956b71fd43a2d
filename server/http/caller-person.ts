// Who a settings call acts for, read from the typed caller in one place (docs/settings.md "Personal"): personal
// settings and prompts are the caller's person's; the admin's settings need the admin role, and what runs code the
// admin token itself (docs/settings.md "Locked").
import type { FastifyRequest } from "fastify";
import { callerOfRoute, requireAdminRole } from "./auth.ts";

export function callerPerson(request: FastifyRequest): string {
  return callerOfRoute(request).person_id;
}

export interface AdminCaller {
  /** The admin token itself made the call (it may change what runs on the server). */
  adminToken: boolean;
  /** Named in the log line and the audit entry of a change: "admin_token" or the acting person's id. */
  who: string;
}

/** Refuses a caller without the admin role (403 admin_required); says who it is. */
export function requireAdminCaller(request: FastifyRequest): AdminCaller {
  const caller = requireAdminRole(request);
  return { adminToken: caller.kind === "admin", who: caller.kind === "admin" ? "admin_token" : caller.person_id };
}
