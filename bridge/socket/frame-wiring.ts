// Connects one accepted ws to the router: every frame is size-checked (by ws), parsed, validated, then routed. A
// malformed frame closes the socket (1007); a handler that throws closes only that socket (1011).
import type { RawData, WebSocket } from "ws";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import type { Router } from "../channels/router.ts";
import type { BridgeCore } from "../core.ts";
import { decodeFrame } from "../protocol/serializer.ts";
import type { Connection } from "./connection.ts";

export function wireFrames(
  core: BridgeCore,
  router: Router,
  connection: Connection,
  ws: WebSocket,
  onGone: () => void,
): void {
  const { log, metrics, clock } = core;
  ws.on("message", (data: RawData, isBinary: boolean) => {
    connection.lastSeen = clock.now();
    receiveFrame(core, router, connection, isBinary ? undefined : data.toString());
  });
  ws.on("error", (error: Error & { code?: string }) => {
    if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") metrics.badFrames++;
    log.warn(
      {
        socket: connection.id,
        address: connection.address,
        code: error.code ?? null,
        problem: error.message,
      },
      "socket error",
    );
  });
  ws.on("close", () => {
    connection.onClosed();
    onGone();
  });
}

/** One text frame from a peer (a WebSocket message, a long-poll line; undefined for a binary one): parsed, validated, routed. */
export function receiveFrame(core: BridgeCore, router: Router, connection: Connection, text: string | undefined): void {
  const { log, metrics } = core;
  metrics.framesIn++;
  if (connection.closed) return;
  const decoded =
    text === undefined
      ? { ok: false as const, problem: "binary frames are not spoken here" }
      : decodeFrame(text, connection.vsn);
  if (!decoded.ok) {
    metrics.badFrames++;
    log.warn(
      {
        socket: connection.id,
        address: connection.address,
        problem: decoded.problem,
      },
      "malformed frame",
    );
    connection.close(BRIDGE_CLOSE.invalidFrame, "malformed frame");
    return;
  }
  try {
    router.handle(connection, decoded.frame);
  } catch (error) {
    // A bug in one handler must not take the process (and everyone else's sockets) down.
    log.error(
      {
        socket: connection.id,
        error: error instanceof Error ? error.message : String(error),
      },
      "frame handler failed",
    );
    connection.close(BRIDGE_CLOSE.internalError, "internal error");
  }
}
