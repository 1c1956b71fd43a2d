// `server:<id>` joined on a cluster node: the single node's rules (channels/server-channel.ts), with the registry,
// the registration limits and link ownership in Redis. Registration is trust on first use cluster-wide (HSETNX);
// one live link per server across nodes (`already_connected`); the link resumes from the shared history's last
// relayed id, so a server whose node died continues on another exactly where the cluster left off.
import type { Frame, ServerJoinParams } from "../../client/wire/frames.ts";
import type { BridgeCore } from "../core.ts";
import { sha256Hex } from "../hash.ts";
import type { ChannelEntry, Connection } from "../socket/connection.ts";
import type { ServerState } from "../state/registry.ts";
import type { JoinAttempt, JoinOutcome } from "../channels/types.ts";
import { refuse } from "../channels/types.ts";
import type { ClusterNode } from "./cluster-node.ts";

type Link = (state: ServerState) => { entry: ChannelEntry; resumeAfter: string };

export function clusterServerJoin(core: BridgeCore, cluster: ClusterNode, connection: Connection, frame: Frame, serverId: string, params: ServerJoinParams, link: Link): JoinAttempt {
  // The router needs the entry now; the real one exists once the join succeeds.
  let linked: ChannelEntry | undefined;
  let ended = false;
  const entry: ChannelEntry = {
    joinRef: frame.joinRef,
    handleIn: (pushed) => linked?.handleIn(pushed),
    terminate: (reason) => {
      ended = true;
      linked?.terminate(reason);
    },
  };
  const refused = (reason: "unauthorized" | "already_connected" | "registration_closed" | "rate_limited", msg: string): JoinOutcome => {
    core.log.log("warn", msg, { socket: connection.id, address: connection.address, server_id: serverId, reason });
    return refuse(reason);
  };
  const outcome = (async (): Promise<JoinOutcome> => {
    const credentialHash = sha256Hex(params.credential);
    let record = await cluster.store.read(serverId);
    if (!record) {
      const refusal = await registrationRefusal(core, cluster, connection);
      if (refusal) {
        core.metrics.serverRegistrationsRefused++;
        return refused(refusal, "server registration refused");
      }
      await cluster.store.claim(serverId, credentialHash);
      record = await cluster.store.read(serverId);
      await cluster.store.announce(serverId);
    }
    if (record) core.registry.applyRecord(serverId, record);
    const auth = core.registry.authenticateServer(serverId, params.credential);
    if (!auth.ok) return refused(auth.reason, auth.reason === "already_connected" ? "server credential replayed while its channel is live" : "server join with a wrong credential");
    if (!(await cluster.links.claim(serverId))) return refused("already_connected", "server already linked on another node");
    if (ended || connection.closed) {
      await cluster.links.release(serverId);
      return refuse("unauthorized");
    }
    await cluster.adoptHistory(auth.state);
    if (ended || connection.closed || (auth.state.link && !auth.state.link.connection.closed)) {
      await cluster.links.release(serverId);
      return refuse("already_connected");
    }
    const done = link(auth.state);
    linked = done.entry;
    return { status: "ok", response: { resume_after: done.resumeAfter } };
  })();
  return { entry, outcome };
}

/** Why a new server id may not be registered now (the cap, this address's cluster-wide rate); one allowed is counted. */
async function registrationRefusal(core: BridgeCore, cluster: ClusterNode, connection: Connection): Promise<"registration_closed" | "rate_limited" | undefined> {
  if (core.registry.registeredServers >= core.config.maxServers) return "registration_closed";
  if (await cluster.registrationLimiter.limited(connection.address)) return "rate_limited";
  await cluster.registrationLimiter.count(connection.address);
  return undefined;
}
