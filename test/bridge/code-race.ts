// Pairing joins from chosen loopback addresses, and a hold that lines attempts up between finding their code and
// taking it: the race of two apps typing one code at once (test/bridge/code-race.test.ts, test/properties/).
import { WebSocket } from "ws";
import { cleanups, type TestBridge } from "./helpers.ts";

/** One pairing join from `address` (a loopback address); resolves with the reply's status and reason. */
export async function pairFrom(url: string, address: string, code: string): Promise<string> {
  const ws = new WebSocket(`${url}/websocket?vsn=2.0.0`, { localAddress: address });
  cleanups.push(() => ws.terminate());
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const reply = new Promise<string>((resolve) =>
    ws.once("message", (data) => {
      const [, , , , payload] = JSON.parse(data.toString()) as [
        unknown,
        unknown,
        unknown,
        unknown,
        { status: string; response: { reason?: string } },
      ];
      resolve(payload.status === "ok" ? "ok" : payload.response.reason!);
    }),
  );
  ws.send(JSON.stringify(["1", "1", "pairing", "phx_join", { code, device_name: "phone" }]));
  const answer = await reply;
  ws.terminate();
  return answer;
}

/**
 * Holds every attempt that found its code at the one await between finding and taking it (the link's status), so a
 * batch's attempts are all past the lookup before any takes the code: the race a loaded node can meet.
 */
export function holdBeforeTaking(bridge: TestBridge): Array<() => void> {
  const held: Array<() => void> = [];
  const servers = bridge.core.servers;
  const linkStatus = servers.linkStatus.bind(servers);
  servers.linkStatus = async (state) => {
    await new Promise<void>((resolve) => held.push(resolve));
    return linkStatus(state);
  };
  return held;
}
