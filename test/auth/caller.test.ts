// Who a credential is as a caller (server/auth/caller.ts) and what a producer token may call
// (server/auth/producer-scope.ts), called directly: fast, so mutation testing runs them for every mutant of these
// files (docs/testing.md "Mutation score").
import { describe, expect, it } from "vitest";
import { callerOf, deviceIdOf, type PersonLookup } from "../../server/auth/caller.ts";
import { producerMayCall } from "../../server/auth/producer-scope.ts";

const live = (id: string) => ({ id, role: "member" as const, removed_at: null });
const people: PersonLookup = {
  actingAdmin: () => ({ id: "per_admin", role: "admin" }),
  ofDevice: (id) => (id === "dev_removed" ? { ...live("per_gone"), removed_at: "2026-01-01" } : live(`per_${id}`)),
  ofProducer: (id) => (id === "prd_orphan" ? undefined : live(`per_${id}`)),
};

describe("callerOf", () => {
  it("gives the admin token the acting admin's person and role", () => {
    expect(callerOf({ kind: "admin" }, people)).toEqual({ kind: "admin", person_id: "per_admin", role: "admin" });
  });

  it("gives a device and a producer their own person, keeping the credential's fields", () => {
    expect(callerOf({ kind: "device", device_id: "dev_1" }, people)).toEqual({
      kind: "device",
      device_id: "dev_1",
      person_id: "per_dev_1",
      role: "member",
    });
    expect(callerOf({ kind: "producer", producer_id: "prd_1", producer_name: "ci" }, people)).toEqual({
      kind: "producer",
      producer_id: "prd_1",
      producer_name: "ci",
      person_id: "per_prd_1",
      role: "member",
    });
  });

  it("is nobody when the person was removed or is not found", () => {
    expect(callerOf({ kind: "device", device_id: "dev_removed" }, people)).toBeUndefined();
    expect(callerOf({ kind: "producer", producer_id: "prd_orphan", producer_name: "x" }, people)).toBeUndefined();
  });

  it("deviceIdOf names only a device caller", () => {
    expect(deviceIdOf(callerOf({ kind: "device", device_id: "dev_1" }, people))).toBe("dev_1");
    expect(deviceIdOf(callerOf({ kind: "admin" }, people))).toBeUndefined();
    expect(deviceIdOf(undefined)).toBeUndefined();
  });
});

describe("producerMayCall", () => {
  it("allows publishing and resolving at both scopes, by the routed URL", () => {
    for (const url of [
      "/application/notifications",
      "/application/notifications/resolve",
      "/sessions/:session_id/notifications",
      "/sessions/:session_id/notifications/resolve",
    ])
      expect(producerMayCall("POST", url)).toBe(true);
  });

  it("refuses every other method, route, spelling and an unrouted request", () => {
    expect(producerMayCall("GET", "/application/notifications")).toBe(false);
    expect(producerMayCall("POST", "/sessions/s_1/notifications")).toBe(false);
    expect(producerMayCall("POST", "/sessions")).toBe(false);
    expect(producerMayCall("POST", "")).toBe(false);
    expect(producerMayCall("POST", undefined)).toBe(false);
  });
});
