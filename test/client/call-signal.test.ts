// A call given up by its caller (docs/client.md "Call the server", C176: `signal`): against a real server behind a proxy that holds
// every byte (a request with no answer, no error and no timeout of its own), the aborted send fails with a
// NetworkError instead of waiting for good, and sent again with its client_request_id it starts nothing twice, also
// when the held first attempt reaches the server afterwards.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/connection/client.ts";
import { NetworkError } from "../../client/transport/errors.ts";
import { CuttableProxy } from "./support/proxy.ts";
import { FAST_RECONNECT, until, untilLive } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

describe("a call's signal", () => {
  it("aborts a send whose answer never comes; the same client_request_id then runs it once", async () => {
    const stack = await scope.start();
    const proxy = scope.own(await CuttableProxy.start(() => stack.serverPort));
    const credentials = { ...(await stack.pair()), server_url: `http://127.0.0.1:${proxy.port}` };
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, route: "direct" }));
    await untilLive(client);
    // Each call's signal stays out of the body it sends: a stray key would be refused by the route's schema.
    const session = await client.createSession({
      client_session_id: "cs_signal",
      signal: new AbortController().signal,
    });

    proxy.blackhole();
    const giveUp = new AbortController();
    const sending = client.send(session.id, { content: "held", client_request_id: "crid_held", signal: giveUp.signal });
    giveUp.abort();
    await expect(sending).rejects.toBeInstanceOf(NetworkError);

    proxy.restore();
    const again = await client.send(session.id, { content: "held", client_request_id: "crid_held" });
    const userMessages = async () => {
      const read = await stack.server.request({ method: "GET", url: `/sessions/${session.id}/messages` });
      return (read.json as { messages: Array<{ role: string; content: string }> }).messages.filter(
        (message) => message.role === "user",
      );
    };
    await until(async () => (await userMessages()).length > 0, "the send's message stored");
    const repeat = await client.send(session.id, { content: "held", client_request_id: "crid_held" });
    expect(repeat.request_id).toBe(again.request_id);
    expect((await userMessages()).map((message) => message.content)).toEqual(["held"]);
  });
});
