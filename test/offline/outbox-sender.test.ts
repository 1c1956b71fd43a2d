// The outbox's sender over a real server (app/src/offline/outbox-sender.ts, docs/app.md "Outbox" OB15, OB17): a
// message sent again whose first send was accepted and answered while nothing listened (the answer lost, the app
// closed) finds its reply's completion in the server's log, so its chat's next message goes; a sender disposed on an
// unpair ends the waits it holds instead of leaving them for good, and lists no chat a late answer created.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/connection/client.ts";
import { createOutbox } from "../../app/src/offline/outbox.ts";
import { memoryOutboxStore } from "../../app/src/offline/outbox-store.ts";
import { clientSender } from "../../app/src/offline/outbox-sender.ts";
import { FAST_RECONNECT, until, untilLive } from "../client/support/stack.ts";
import { CuttableProxy } from "../client/support/proxy.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

describe("the outbox's sender", () => {
  it("ends the wait of a message whose reply completed unheard, from the log, and sends the chat's next (OB15)", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const earlier = scope.own(connect(credentials, { ...FAST_RECONNECT, route: "direct" }));
    await untilLive(earlier);
    const session = await earlier.createSession({ client_session_id: "cs_lost" });
    // An earlier run's send: accepted and its reply completed, but its answer never reached the outbox.
    const { request_id } = await earlier.send(session.id, { content: "one", client_request_id: "crid_one" });
    const completed = async () =>
      (await earlier.readEvents({ request_id })).events.some(
        (event) => (event as { type?: string }).type === "request_completed",
      );
    await until(completed, "the earlier send's reply completed");
    await earlier.close();

    // The next open: a new client (its events start now) and the outbox as the earlier run left it.
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, route: "direct" }));
    await untilLive(client);
    const store = memoryOutboxStore();
    for (const [seq, text] of ["one", "two"].entries())
      await store.put({ id: `crid_${text}`, chat: session.id, session_id: session.id, text, request_options: {}, seq });
    const outbox = createOutbox(store);
    await outbox.load();
    const reports: string[] = [];
    const sender = clientSender(client, {
      created: () => undefined,
      failed: () => undefined,
      report: (message) => reports.push(message),
    });
    scope.onClose(() => sender.dispose());
    await outbox.flush(sender);

    const read = await stack.server.request({ method: "GET", url: `/sessions/${session.id}/messages` });
    const { messages } = read.json as { messages: Array<{ role: string; content: string }> };
    expect(messages.filter((message) => message.role === "user").map((message) => message.content)).toEqual([
      "one",
      "two",
    ]);
    expect(outbox.items.value).toEqual([]);
    expect(reports).toEqual([]);
  });

  it("rejects the waits it holds when disposed, so their chats are let go (OB17)", async () => {
    const stack = await scope.start();
    const client = scope.own(connect(await stack.pair(), { ...FAST_RECONNECT, route: "direct" }));
    await untilLive(client);
    const session = await client.createSession({ client_session_id: "cs_dispose" });
    const sender = clientSender(client, { created: () => undefined, failed: () => undefined, report: () => undefined });
    // A request the log knows nothing of: nothing would end this wait but the dispose.
    const waiting = sender.awaitReply(session.id, "req_never_sent");
    sender.dispose();
    await expect(waiting).rejects.toThrow("the outbox's client was closed");
  });

  it("keeps a chat created by a send answered after the dispose out of the list (OB17)", async () => {
    const stack = await scope.start();
    const proxy = scope.own(await CuttableProxy.start(() => stack.serverPort));
    const credentials = { ...(await stack.pair()), server_url: `http://127.0.0.1:${proxy.port}` };
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, route: "direct" }));
    await untilLive(client);
    const created: string[] = [];
    const sender = clientSender(client, {
      created: (session) => created.push(session.id),
      failed: () => undefined,
      report: () => undefined,
    });
    // The chat's creation is held on the way; the device is unpaired meanwhile; then it goes through.
    proxy.blackhole();
    const sending = sender.send({
      id: "crid_late",
      chat: "cs_late",
      client_session_id: "cs_late",
      text: "late",
      request_options: {},
      seq: 1,
    });
    sender.dispose();
    proxy.restore();
    const sent = await sending;
    expect(sent.session_id).toMatch(/./);
    expect(created).toEqual([]);
  });
});
