// `pairing`: an app with no token joins with {code, device_name}. The bridge knows which server registered the
// code (by hash), forwards the attempt to that server's channel and holds the join reply until the server has
// created the device, so the app never holds a token its server does not know. Failures count against the
// address and overall (AddressRateLimiter); past the overall budget an address that has not failed in the window is
// still checked, so an attacker spending the budget cannot keep valid codes out. A code is taken off the bridge on
// its first use that reaches its server. A valid code whose server has not (re)joined the bridge (codes survive a
// bridge restart in servers.json) is answered `server_unavailable`: retryable, the code kept, no failure counted;
// only a code the bridge holds gets this answer, so every wrong guess is still counted.
import {
  normalizePairingCode,
  pairingJoinParamsSchema,
  type Frame,
  type PairResult,
} from "../../client/wire/frames.ts";
import type { BridgeCore } from "../core.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { replyFrame } from "../protocol/serializer.ts";
import type { Connection } from "../socket/connection.ts";
import type { PendingPairs } from "./server-channel.ts";
import { refuse, type JoinAttempt, type JoinOutcome, type TopicHandler } from "./types.ts";

type PairingFailure = "invalid_code" | "expired" | "invalid_params";

export function pairingChannel(core: BridgeCore, pending: PendingPairs): TopicHandler {
  return {
    join(connection, frame): JoinAttempt {
      core.metrics.pairingAttempts++;
      let cancel: () => void = () => undefined;
      const entry = {
        joinRef: frame.joinRef,
        // A pairing socket holds no device: it may not call the server's API (nor push anything else).
        handleIn: (pushed: Frame) => {
          core.log.warn(
            {
              socket: connection.id,
              address: connection.address,
              event: pushed.event,
            },
            "push on the pairing topic refused",
          );
          connection.send(replyFrame(pushed, "error", { reason: "invalid_request" }));
        },
        terminate: () => cancel(),
      };
      const attempt = pair(core, pending, connection, frame, (next) => (cancel = next)).catch(
        (error: unknown): JoinOutcome => {
          // The shared state not answering (Redis away): a retryable refusal, never a failed socket.
          core.log.warn(
            {
              socket: connection.id,
              error: error instanceof Error ? error.message : String(error),
            },
            "pairing through the shared state failed",
          );
          return refuse("server_unavailable");
        },
      );
      // Turning the server's answer into the reply is the bridge's own work: a failure there is a bug (1011).
      const outcome = attempt.then((done) =>
        "answer" in done ? toOutcome(core, connection, done.serverId, done.answer) : done,
      );
      return { entry, outcome };
    },
  };
}

/**
 * The one pairing path, on either shared state: the limit, the params, the code (found, unexpired), the server's
 * link somewhere, the code taken for good (one taker across nodes), and the request forwarded to the link.
 */
async function pair(
  core: BridgeCore,
  pending: PendingPairs,
  connection: Connection,
  frame: Frame,
  setCancel: (cancel: () => void) => void,
): Promise<JoinOutcome | { serverId: string; answer: PairResult }> {
  const { pairing, servers } = core;
  const fail = (reason: PairingFailure): JoinOutcome => {
    core.limiterFailure(connection, reason);
    return refuse(reason);
  };
  if (await pairing.pairingLimited(connection.address)) {
    core.metrics.pairingRateLimited++;
    core.log.warn({ socket: connection.id, address: connection.address }, "pairing rate limited");
    return refuse("rate_limited");
  }
  const params = pairingJoinParamsSchema.safeParse(frame.payload);
  if (!params.success) return fail("invalid_params");
  const code = normalizePairingCode(params.data.code);
  const codeHash = sha256Hex(code);
  const found = core.registry.findCode(codeHash);
  if (!found) return (await unheardCode(core, connection, params.data.server_id)) ?? fail("invalid_code");
  const { state } = found;
  if (found.expiresAt <= core.clock.now()) {
    core.registry.takeCode(state, codeHash);
    return fail("expired");
  }
  if (!(await servers.linkStatus(state)).online) {
    core.log.info({ socket: connection.id, server_id: state.id }, "pairing code for a server not joined yet");
    return refuse("server_unavailable");
  }
  // Single use: a second attempt with this code, even a concurrent one on another node, finds nothing.
  if (!(await pairing.takeCode(state, codeHash))) return fail("invalid_code");
  const asked = pending.ask(
    state,
    connection,
    code,
    params.data.device_name,
    params.data.device_key,
    core.config.pairingTimeoutMs,
    (payload) => servers.toServer(state, "pair_request", payload),
  );
  setCancel(asked.cancel);
  return { serverId: state.id, answer: await asked.result };
}

/**
 * A code the bridge has not heard of, for the server the app names, when that server's link is not up: the server
 * may have made it before its first link (its grants come with its join), so the answer is `server_unavailable`,
 * retryable and not counted. No guess can pair meanwhile (nobody is there to redeem it) and nothing is consumed; once
 * the link is up, an unknown code is `invalid_code` and counted as before.
 */
async function unheardCode(
  core: BridgeCore,
  connection: Connection,
  serverId: string | undefined,
): Promise<JoinOutcome | undefined> {
  if (serverId === undefined) return undefined;
  const state = core.registry.get(serverId);
  if (state && (await core.servers.linkStatus(state)).online) return undefined;
  core.log.info(
    {
      socket: connection.id,
      server_id: serverId,
    },
    "pairing code not heard of yet, for a server not linked",
  );
  return refuse("server_unavailable");
}

function toOutcome(core: BridgeCore, connection: Connection, serverId: string, result: PairResult): JoinOutcome {
  if (result.status === "error") {
    if (result.reason === "invalid_code" || result.reason === "expired") core.limiterFailure(connection, result.reason);
    return refuse(result.reason);
  }
  core.log.info(
    {
      server_id: serverId,
      device_id: result.device_id,
      address: connection.address,
      mode: "sealed" in result ? "e2e" : "plain",
    },
    "device paired",
  );
  const { request_id: _request, status: _status, ...answer } = result;
  return { status: "ok", response: { server_id: serverId, ...answer } };
}
