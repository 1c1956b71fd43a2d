// What a relayed call costs on the server's link (docs/bridge.md "Relay" B162): one `api_request` to the server and
// one `api_result` back, sent without a ref, which the bridge does not acknowledge (no `phx_reply` to the server).
import { afterEach, describe, expect, it } from "vitest";
import type { Frame } from "../../client/wire/frames.ts";
import { runCleanups } from "../bridge/helpers.ts";
import { pairedRelay, relay } from "./stack.ts";

afterEach(runCleanups);

describe("the server's link per relayed call (B162)", () => {
  it("carries an api_request and a ref-less api_result, and no ack", async () => {
    const { stack, channel } = await pairedRelay();
    const link = stack.bridge.core.registry.get("srv1")!.link!;
    const toServer: Frame[] = [];
    const send = link.connection.send.bind(link.connection);
    link.connection.send = (frame: Frame) => {
      toServer.push(frame);
      send(frame);
    };
    // Reads: nothing is published, so no session_event (and its ack) shares the link meanwhile.
    const answers = await Promise.all([relay(channel, "GET", "/sessions"), relay(channel, "GET", "/agents")]);
    expect(answers.map((answer) => answer.response.status)).toEqual([200, 200]);
    expect(toServer.map((frame) => frame.event)).toEqual(["api_request", "api_request"]);
  });
});
