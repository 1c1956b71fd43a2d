// The people routes (docs/people.md "Routes", invariants N1-N8): who may list, add, change and remove people, the last
// admin, removal revoking devices at once and deleting or transferring chats, pairing for a person, the device list
// per person, the audit log.
import { describe, expect, it } from "vitest";
import { chatOf, pairDevice, startHousehold } from "./support.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

describe("people", () => {
  it("N1: every server has the admin person Owner; the admin token acts as it", async () => {
    const h = closing.own(await startHousehold());
    const me = await h.server.request({ method: "GET", url: "/people/me" });
    expect(me.status).toBe(200);
    expect(me.json.person).toMatchObject({ name: "Owner", role: "admin", agents: "*", removed_at: null });
    expect(me.json.person.id).toBe(h.admin.id);
  });

  it("N2: only the admin role lists, adds, changes and removes people; any device reads the directory and itself", async () => {
    const h = closing.own(await startHousehold());
    const { server, admin, adult, child } = h;
    for (const token of [adult.e2e.token, child.plain.token]) {
      expect((await server.request({ method: "GET", url: "/people", token })).json.error.code).toBe("admin_required");
      const add = await server.request({ method: "POST", url: "/people", token, payload: { name: "Eve" } });
      expect([add.status, add.json.error.code]).toEqual([403, "admin_required"]);
      const patch = await server.request({
        method: "PATCH",
        url: `/people/${token === adult.e2e.token ? adult.id : child.id}`,
        token,
        payload: { role: "admin" },
      });
      expect([patch.status, patch.json.error.code]).toEqual([403, "admin_required"]);
      const audit = await server.request({ method: "GET", url: "/audit", token });
      expect(audit.status).toBe(403);
    }
    const directory = await server.request({ method: "GET", url: "/people/directory", token: child.e2e.token });
    expect(directory.status).toBe(200);
    expect(directory.json.people.map((p: { name: string }) => p.name).sort()).toEqual(["Ana", "Kid", "Owner"]);
    expect(Object.keys(directory.json.people[0]).sort()).toEqual(["id", "name"]);
    const me = await server.request({ method: "GET", url: "/people/me", token: child.e2e.token });
    expect(me.json.person).toMatchObject({ id: child.id, role: "member", agents: ["kids"], max_requests_per_day: 2 });
    const list = await server.request({ method: "GET", url: "/people", token: admin.plain.token });
    expect(list.status).toBe(200);
    expect(list.json.people).toHaveLength(3);
  });

  it("N3: the last admin can be neither demoted nor removed (409 last_admin); a second admin makes both possible", async () => {
    const h = closing.own(await startHousehold());
    const { server, admin, adult } = h;
    const demote = await server.request({ method: "PATCH", url: `/people/${admin.id}`, payload: { role: "member" } });
    expect([demote.status, demote.json.error.code]).toEqual([409, "last_admin"]);
    const remove = await server.request({ method: "DELETE", url: `/people/${admin.id}?chats=delete` });
    expect([remove.status, remove.json.error.code]).toEqual([409, "last_admin"]);
    expect(
      (await server.request({ method: "PATCH", url: `/people/${adult.id}`, payload: { role: "admin" } })).status,
    ).toBe(200);
    const again = await server.request({ method: "PATCH", url: `/people/${admin.id}`, payload: { role: "member" } });
    expect(again.status).toBe(200);
    // The admin token now acts as the oldest live admin: Ana.
    expect((await server.request({ method: "GET", url: "/people/me" })).json.person.id).toBe(adult.id);
  });

  it("N4: unknown and removed people are 404 person_not_found; bad input is 400", async () => {
    const h = closing.own(await startHousehold());
    const { server, child } = h;
    for (const url of ["/people/per_nope?chats=delete", `/people/per_nope?chats=transfer&to=${child.id}`]) {
      const answer = await server.request({ method: "DELETE", url });
      expect([answer.status, answer.json.error.code]).toEqual([404, "person_not_found"]);
    }
    const missingChoice = await server.request({ method: "DELETE", url: `/people/${child.id}` });
    expect([missingChoice.status, missingChoice.json.error.code]).toEqual([400, "invalid_input"]);
    const noHeir = await server.request({ method: "DELETE", url: `/people/${child.id}?chats=transfer` });
    expect(noHeir.status).toBe(400);
    const huge = await server.request({ method: "POST", url: "/people", payload: { name: "x".repeat(10_000) } });
    expect(huge.status).toBe(400);
    const badRole = await server.request({ method: "POST", url: "/people", payload: { name: "x", role: "root" } });
    expect(badRole.status).toBe(400);
    expect((await server.request({ method: "DELETE", url: `/people/${child.id}?chats=delete` })).status).toBe(204);
    const removed = await server.request({ method: "PATCH", url: `/people/${child.id}`, payload: { name: "again" } });
    expect([removed.status, removed.json.error.code]).toEqual([404, "person_not_found"]);
    const pairFor = await server.request({ method: "POST", url: "/pairing", payload: { person_id: child.id } });
    expect([pairFor.status, pairFor.json.error.code]).toEqual([404, "person_not_found"]);
  });

  it("N5: removing a person revokes their devices at once and deletes their chats", async () => {
    const h = closing.own(await startHousehold());
    const { server, adult } = h;
    const chat = await chatOf(server, adult.e2e.token, "ANA-PRIVATE");
    expect((await server.request({ method: "DELETE", url: `/people/${adult.id}?chats=delete` })).status).toBe(204);
    for (const device of [adult.e2e, adult.plain])
      expect((await server.request({ method: "GET", url: "/sessions", token: device.token })).status).toBe(401);
    const gone = await server.request({ method: "GET", url: `/sessions/${chat}` });
    expect(gone.status).toBe(404);
    const people = (await server.request({ method: "GET", url: "/people" })).json.people;
    expect(people.find((p: { id: string }) => p.id === adult.id).removed_at).not.toBeNull();
    const directory = (await server.request({ method: "GET", url: "/people/directory" })).json.people;
    expect(directory.map((p: { id: string }) => p.id)).not.toContain(adult.id);
  });

  it("N6: a transfer gives the chats to the heir; an admin's device may not take them for itself, the admin token may", async () => {
    const h = closing.own(await startHousehold());
    const { server, admin, adult, child } = h;
    const chat = await chatOf(server, child.e2e.token, "KID-CHAT", "kids");
    const grab = await server.request({
      method: "DELETE",
      url: `/people/${child.id}?chats=transfer&to=${admin.id}`,
      token: admin.e2e.token,
    });
    expect([grab.status, grab.json.error.code]).toEqual([403, "admin_required"]);
    const toAna = await server.request({
      method: "DELETE",
      url: `/people/${child.id}?chats=transfer&to=${adult.id}`,
      token: admin.e2e.token,
    });
    expect(toAna.status).toBe(204);
    const read = await server.request({ method: "GET", url: `/sessions/${chat}`, token: adult.plain.token });
    expect(read.status).toBe(200);
    expect(read.json.session.owner).toBe(adult.id);
    expect((await server.request({ method: "GET", url: `/sessions/${chat}`, token: admin.e2e.token })).status).toBe(
      404,
    );
    const audit = (await server.request({ method: "GET", url: "/audit" })).json.entries;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(["chats_transferred", "person_removed"]),
    );
  });

  it("N7: a pairing code is for the caller's person by default; for someone else it needs the admin role and is audited", async () => {
    const h = closing.own(await startHousehold());
    const { server, admin, adult } = h;
    const own = await server.request({ method: "POST", url: "/pairing", token: adult.plain.token, payload: {} });
    expect(own.status).toBe(201);
    expect(own.json.person_id).toBe(adult.id);
    const other = await server.request({
      method: "POST",
      url: "/pairing",
      token: adult.plain.token,
      payload: { person_id: admin.id },
    });
    expect([other.status, other.json.error.code]).toEqual([403, "admin_required"]);
    const forAna = await server.request({
      method: "POST",
      url: "/pairing",
      token: admin.plain.token,
      payload: { person_id: adult.id },
    });
    expect(forAna.status).toBe(201);
    const redeemed = server.runtime.ctx.pairing.redeem(forAna.json.code, "Ana tablet");
    expect(redeemed).toMatchObject({ ok: true, person_id: adult.id });
    const audit = (await server.request({ method: "GET", url: "/audit" })).json.entries;
    expect(audit[0]).toMatchObject({ action: "pairing_for_person", actor: admin.id, person_id: adult.id });
  });

  it("N8: GET /devices lists the caller's person's devices (every person's for the admin role); another's is not found", async () => {
    const h = closing.own(await startHousehold());
    const { server, admin, adult, child } = h;
    const mine = await server.request({ method: "GET", url: "/devices", token: adult.e2e.token });
    expect(mine.status).toBe(200);
    expect(mine.json.devices.map((d: { device_id: string }) => d.device_id).sort()).toEqual(
      [adult.e2e.device_id, adult.plain.device_id].sort(),
    );
    expect(mine.json.devices.every((d: { person_id: string }) => d.person_id === adult.id)).toBe(true);
    const all = await server.request({ method: "GET", url: "/devices", token: admin.plain.token });
    expect(all.json.devices).toHaveLength(6);
    const steal = await server.request({
      method: "DELETE",
      url: `/devices/${child.e2e.device_id}`,
      token: adult.e2e.token,
    });
    expect([steal.status, steal.json.error.code]).toEqual([404, "device_not_found"]);
    const ownOther = await server.request({
      method: "DELETE",
      url: `/devices/${adult.plain.device_id}`,
      token: adult.e2e.token,
    });
    expect(ownOther.status).toBe(200);
    const byAdmin = await server.request({
      method: "DELETE",
      url: `/devices/${child.plain.device_id}`,
      token: admin.e2e.token,
    });
    expect(byAdmin.status).toBe(200);
    const extra = pairDevice(server, child.id, "Kid tablet", false);
    expect(server.runtime.ctx.pairing.device(extra.device_id)?.person_id).toBe(child.id);
  });
});
