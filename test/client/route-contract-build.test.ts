// A route's contract builds its schemas on first read (client/wire/routes/route.ts `defineRoute`; docs/app.md
// "Start-up", SU2): loading the library builds none, and a contract built later is the one an eager build would make,
// with the same fields, defaults and schemas, read the same way by `in`, `Object.keys` and spreading.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as routes from "../../client/wire/routes/index.ts";
import { defineRoute, type RouteContract } from "../../client/wire/routes/route.ts";

function counted<S>(spec: () => S): { spec: () => S; builds: () => number } {
  let builds = 0;
  return { spec: () => ((builds += 1), spec()), builds: () => builds };
}

describe("a route contract", () => {
  it("builds nothing until a field beyond its method and path is read, then builds once", () => {
    const answer = z.object({ ok: z.boolean() });
    const { spec, builds } = counted(() => ({ answer, errors: ["session_not_found"] as const }));
    const route = defineRoute("GET", "/sessions/:session_id", spec);
    expect([route.method, route.path, builds()]).toEqual(["GET", "/sessions/:session_id", 0]);
    expect(route.answer).toBe(answer);
    expect(route.answer).toBe(route.answer);
    expect(route.errors).toEqual(["session_not_found"]);
    expect(builds()).toBe(1);
  });

  it("reads as the eagerly built contract: fields, defaults, `in`, keys and a spread", () => {
    const query = z.object({ limit: z.string() }).strict();
    const answer = z.object({ results: z.array(z.string()) });
    const route: RouteContract = defineRoute("GET", "/search", () => ({ query, answer }));
    const eager = { method: "GET", path: "/search", query, answer, status: 200, errors: [] };
    expect({ ...route }).toEqual(eager);
    expect(Object.keys(route).sort()).toEqual(Object.keys(eager).sort());
    expect(["query" in route, "body" in route, "rawBody" in route]).toEqual([true, false, false]);
    expect([route.body, route.status, route.errors]).toEqual([undefined, 200, []]);
  });

  it("does not change once built", () => {
    const route = defineRoute("POST", "/x", () => ({ answer: z.null(), status: 204 })) as unknown as Record<
      string,
      unknown
    >;
    expect(() => (route.status = 200)).toThrow(TypeError);
    expect(route.status).toBe(204);
  });

  it("every contract of the wire builds: a method, a path, an answer schema, a status and its error codes", () => {
    const contracts = (Object.values(routes) as unknown[]).filter(
      (value): value is RouteContract => typeof value === "object" && value !== null && "answer" in value,
    );
    expect(contracts.length).toBeGreaterThan(90);
    for (const contract of contracts) {
      expect(contract.method, contract.path).toMatch(/^(GET|POST|PUT|PATCH|DELETE)$/);
      expect(contract.answer, contract.path).toBeInstanceOf(z.ZodType);
      for (const part of [contract.params, contract.query, contract.body])
        if (part !== undefined) expect(part, contract.path).toBeInstanceOf(z.ZodType);
      expect(Number.isInteger(contract.status), contract.path).toBe(true);
      expect(Array.isArray(contract.errors), contract.path).toBe(true);
    }
  });
});
