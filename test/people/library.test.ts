// The library's people methods (client/api/server-api.ts) over the real routes, through each route's contract: a
// member reads the directory and itself and is refused the admin's calls with the registry's code; the admin lists,
// adds, changes and removes people and reads the audit log.
import { expect, it } from "vitest";
import type { z } from "zod";
import { ResponseError, ServerApi } from "../../client/index.ts";
import { encodeQuery, type RequestOptions } from "../../client/transport/http.ts";
import type { TestServer } from "../support/server.ts";
import { startHousehold } from "./support.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

function clientOf(server: TestServer, token: string): ServerApi {
  return new (class extends ServerApi {
    async request<S extends z.ZodType>(method: string, path: string, schema: S, options?: RequestOptions) {
      const res = await server.request({
        method: method as "GET",
        url: path + encodeQuery(options?.query),
        token,
        ...(options?.body !== undefined ? { payload: options.body as object } : {}),
      });
      if (res.status >= 400) throw new ResponseError(res.status, res.json?.error?.code, res.json, res.text);
      return schema.parse(res.status === 204 ? undefined : res.json) as z.infer<S>;
    }
  })();
}

it("a member reads the directory and itself; the admin manages people and reads the audit log", async () => {
  const h = closing.own(await startHousehold());
  const member = clientOf(h.server, h.child.e2e.token);
  expect((await member.peopleDirectory()).map((p) => p.name)).toEqual(["Ana", "Kid", "Owner"]);
  expect(await member.myPerson()).toMatchObject({ id: h.child.id, role: "member" });
  const refused = await member.listPeople().catch((error: unknown) => error);
  expect(refused).toMatchObject({ status: 403, code: "admin_required" });

  const admin = clientOf(h.server, h.admin.plain.token);
  const eve = await admin.createPerson({ name: "Eve", agents: ["kids"] });
  expect(eve).toMatchObject({ name: "Eve", role: "member", agents: ["kids"] });
  expect(await admin.updatePerson(eve.id, { max_requests_per_day: 5 })).toMatchObject({ max_requests_per_day: 5 });
  await admin.removePerson(eve.id, { chats: "transfer", to: h.adult.id });
  const people = await admin.listPeople();
  expect(people.find((p) => p.id === eve.id)?.removed_at).not.toBeNull();
  expect((await admin.auditLog()).map((entry) => entry.action)).toContain("person_removed");
});
