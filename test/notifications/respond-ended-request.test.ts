// An interaction is answered only while the request it belongs to runs (docs/tools.md "Approvals"): a plugin's
// question bound to a request, kept past the request's end by its retention (until_resolved), is refused 409 with
// the record itself once that request has ended, and the record stays pending_response. While the request runs the
// same answer is taken.
import { describe, expect, it } from "vitest";
import { createNotificationApi } from "../../server/notifications/api.ts";
import { respond } from "../mcp/helpers.ts";
import { sendRunningRequest, useRunner, waitForEvent } from "../runner/helpers.ts";

const runner = useRunner({});

describe("answering an interaction of a request", () => {
  it("is taken while the request runs and refused 409 once it has ended", async () => {
    const { server, sid, rid, paused } = await sendRunningRequest(runner, "ask me");
    const plugin = createNotificationApi(server.runtime.ctx.notifications, "test-plugin").session(sid);
    const ask = (key: string) =>
      plugin.create({
        key,
        kind: "interaction",
        severity: "info",
        title: "Go on?",
        request_id: rid,
        retention: { policy: "until_resolved" },
      });
    const during = ask("during");
    const after = ask("after");

    const taken = await respond(server, sid, during.id, { response: "approve" });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.json).toMatchObject({ id: during.id, status: "responded" });

    paused.resume();
    await waitForEvent(server, rid);
    const refused = await respond(server, sid, after.id, { response: "approve" });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json).toMatchObject({ id: after.id, status: "pending_response", revision: after.revision });
    expect(server.runtime.ctx.notifications.session(sid).get(after.id)).toMatchObject({ status: "pending_response" });
  });
});
