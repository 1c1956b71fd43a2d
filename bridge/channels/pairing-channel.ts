// `pairing`: an app with no token joins with {code, device_name}. The bridge knows which server registered the
// code (by hash), forwards the attempt to that server's channel and holds the join reply until the server has
// created the device, so the app never holds a token its server does not know. Failures count against the
// address and overall (AddressRateLimiter); past the overall budget an address that has not failed in the window is
// still checked, so an attacker spending the budget cannot keep valid codes out. A code is taken off the bridge on
// its first use that reaches its server. A valid code whose server has not (re)joined the bridge (codes survive a
// bridge restart in servers.json) is answered `server_unavailable`: retryable, the code kept, no failure counted;
// only a code the bridge holds gets this answer, so every wrong guess is still counted.
import { normalizePairingCode, pairingJoinParamsSchema, type Frame, type PairResult } from "../../client/wire/frames.ts";
import type { ClusterNode } from "../cluster/cluster-node.ts";
import type { BridgeCore } from "../core.ts";
import { sha256Hex } from "../hash.ts";
import { replyFrame } from "../protocol/serializer.ts";
import type { Connection } from "../socket/connection.ts";
import type { PendingPairs } from "./server-channel.ts";
import { refuse, type JoinAttempt, type JoinOutcome, type TopicHandler } from "./types.ts";

export function pairingChannel(core: BridgeCore, pending: PendingPairs): TopicHandler {
  return {
    join(connection, frame): JoinAttempt {
      core.metrics.pairingAttempts++;
      let cancel: () => void = () => undefined;
      const entry = {
        joinRef: frame.joinRef,
        // A pairing socket holds no device: it may not call the server's API (nor push anything else).
        handleIn: (pushed: Frame) => {
          core.log.log("warn", "push on the pairing topic refused", { socket: connection.id, address: connection.address, event: pushed.event });
          connection.send(replyFrame(pushed, "error", { reason: "invalid_request" }));
        },
        terminate: () => cancel(),
      };
      const fail = (reason: "invalid_code" | "expired" | "invalid_params"): JoinOutcome => {
        core.limiterFailure(connection, reason);
        return refuse(reason);
      };
      if (core.cluster) {
        const outcome = clusterPairing(core, core.cluster, pending, connection, frame, fail, (next) => (cancel = next)).catch((error: unknown) => {
          // Redis not answering: a retryable refusal, never a failed socket.
          core.log.log("warn", "pairing through the cluster failed", { socket: connection.id, error: error instanceof Error ? error.message : String(error) });
          return refuse("server_unavailable");
        });
        return { entry, outcome };
      }
      if (core.pairingLimiter.limited(connection.address)) {
        core.metrics.pairingRateLimited++;
        core.log.log("warn", "pairing rate limited", { socket: connection.id, address: connection.address });
        return { entry, outcome: refuse("rate_limited") };
      }
      const params = pairingJoinParamsSchema.safeParse(frame.payload);
      if (!params.success) return { entry, outcome: fail("invalid_params") };
      const code = normalizePairingCode(params.data.code);
      const found = core.registry.findCode(sha256Hex(code));
      if (!found) return { entry, outcome: fail("invalid_code") };
      const codeHash = sha256Hex(code);
      if (found.expiresAt <= core.clock.now()) {
        core.registry.takeCode(found.state, codeHash);
        return { entry, outcome: fail("expired") };
      }
      if (!found.state.link) {
        core.log.log("info", "pairing code for a server not joined yet", { socket: connection.id, server_id: found.state.id });
        return { entry, outcome: refuse("server_unavailable") };
      }
      // Single use on the bridge too: a second attempt with this code, even a concurrent one, finds nothing.
      core.registry.takeCode(found.state, codeHash);
      const asked = pending.ask(found.state, connection, code, params.data.device_name, params.data.device_key, core.config.pairingTimeoutMs);
      cancel = asked.cancel;
      return { entry, outcome: asked.result.then((result) => toOutcome(core, connection, found.state.id, result)) };
    },
  };
}

/**
 * The same steps on a cluster node: the limit counted in Redis, the code taken off every node at once (HDEL: one
 * taker), and the request forwarded to whichever node holds the server's link.
 */
async function clusterPairing(core: BridgeCore, cluster: ClusterNode, pending: PendingPairs, connection: Connection, frame: Frame, fail: (reason: "invalid_code" | "expired" | "invalid_params") => JoinOutcome, setCancel: (cancel: () => void) => void): Promise<JoinOutcome> {
  if (await cluster.pairingLimiter.limited(connection.address)) {
    core.metrics.pairingRateLimited++;
    core.log.log("warn", "pairing rate limited", { socket: connection.id, address: connection.address });
    return refuse("rate_limited");
  }
  const params = pairingJoinParamsSchema.safeParse(frame.payload);
  if (!params.success) return fail("invalid_params");
  const code = normalizePairingCode(params.data.code);
  const codeHash = sha256Hex(code);
  const found = core.registry.findCode(codeHash);
  if (!found) return fail("invalid_code");
  const { state } = found;
  if (found.expiresAt <= core.clock.now()) {
    core.registry.takeCode(state, codeHash);
    return fail("expired");
  }
  const linked = (state.link && !state.link.connection.closed) || (await cluster.links.owner(state.id)) !== undefined;
  if (!linked) {
    core.log.log("info", "pairing code for a server not joined yet", { socket: connection.id, server_id: state.id });
    return refuse("server_unavailable");
  }
  // Single use across nodes: of concurrent attempts with this code, on any nodes, one takes it.
  if (!(await cluster.store.takeCode(state.id, codeHash))) return fail("invalid_code");
  core.registry.dropCode(state, codeHash);
  const asked = pending.ask(state, connection, code, params.data.device_name, params.data.device_key, core.config.pairingTimeoutMs, (payload) => cluster.toServer(state, "pair_request", payload));
  setCancel(asked.cancel);
  return toOutcome(core, connection, state.id, await asked.result);
}

function toOutcome(core: BridgeCore, connection: Connection, serverId: string, result: PairResult): JoinOutcome {
  if (result.status === "error") {
    if (result.reason === "invalid_code" || result.reason === "expired") core.limiterFailure(connection, result.reason);
    return refuse(result.reason);
  }
  core.log.log("info", "device paired", { server_id: serverId, device_id: result.device_id, address: connection.address, mode: "sealed" in result ? "e2e" : "plain" });
  const { request_id: _request, status: _status, ...answer } = result;
  return { status: "ok", response: { server_id: serverId, ...answer } };
}
