// A bridge in a process of its own (`npm run bridge`'s entry), so a test can SIGKILL it (no close frame, no FIN
// from a clean shutdown: what a crash shows its peers) and start it again on the same port and data dir, plus a
// tapped `ws` that counts the pushes each WebSocket receives.
import { retried } from "../../support/holds.ts";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { WebSocket } from "ws";
import type { WebSocketConstructor } from "../../../client/transport/bridge.ts";
import { Stack, until } from "./stack.ts";

/** A cold start of the bridge entry under tsx on a loaded machine. */
export const BRIDGE_START_MS = 60_000;

export class BridgeProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {}

  /** Starts `bridge/main.ts` on 127.0.0.1:`port` (0: any) with `dataDir`; resolves once it listens. */
  static async start(dataDir: string, port = 0): Promise<BridgeProcess> {
    const child = spawn(process.execPath, ["--import", "tsx", "bridge/main.ts"], {
      env: {
        ...process.env,
        BRIDGE_PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        BRIDGE_MAX_SOCKETS: "256",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (chunk) => void (output += String(chunk)));
    child.stderr!.on("data", (chunk) => void (output += String(chunk)));
    const listening = /bridge listening on ws:\/\/127\.0\.0\.1:(\d+)\//;
    try {
      await until(
        () => listening.test(output) || child.exitCode !== null,
        "the bridge process listens",
        BRIDGE_START_MS,
      );
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
    const match = listening.exec(output);
    if (!match) throw new Error(`the bridge did not start: ${output}`);
    return new BridgeProcess(child, Number(match[1]));
  }

  /** SIGKILL: the process ends without closing a single socket cleanly. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, "exit");
    this.child.kill("SIGKILL");
    await exited;
  }
}

/** The client test stack with its bridge in a child process (the server, its forwarder and SQLite stay in this one). */
export class ProcessBridgeStack extends Stack {
  process: BridgeProcess | undefined;

  static async startWithProcess(): Promise<ProcessBridgeStack> {
    const stack = new ProcessBridgeStack();
    await stack.startBridge();
    await stack.startServer();
    return stack;
  }

  override async startBridge(): Promise<void> {
    this.process = await BridgeProcess.start(this.bridgeDir, this.bridgePort);
    this.bridgePort = this.process.port;
  }

  override async stopBridge(): Promise<void> {
    await this.process?.kill();
    this.process = undefined;
  }

  /** The code is known to the bridge once the server's link has told it; pair() is retried until then. */
  override async pairingCode(): Promise<string> {
    const created = await this.server.request({ method: "POST", url: "/pairing", payload: {} });
    return (created.json as { code: string }).code;
  }

  override async pair(deviceName = "phone", options: { e2e?: boolean } = {}) {
    const code = await this.pairingCode();
    // Only invalid_code (the bridge has not heard of the code yet) is tried again; any other failure ends it.
    const outcome = await retried(
      async () => {
        try {
          return { paired: await this.pairWith(code, deviceName, options) };
        } catch (error) {
          if ((error as { reason?: string }).reason === "invalid_code") throw error;
          return { failed: error };
        }
      },
      BRIDGE_START_MS,
      50,
    );
    if ("failed" in outcome) throw outcome.failed;
    return outcome.paired;
  }
}

/** What a tapped `ws` saw: every socket it opened, in order, and the pushes each received. */
export interface Tap {
  sockets: { url: string; opened: boolean; pushes: number }[];
}

/** A `ws` WebSocket that counts the `session_event`/`sealed_event` frames (phoenix vsn 2 arrays) it receives. */
export function tappedWebSocket(tap: Tap): WebSocketConstructor {
  class TappedWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      const entry = { url, opened: false, pushes: 0 };
      tap.sockets.push(entry);
      this.on("open", () => (entry.opened = true));
      this.on("message", (data) => {
        const frame = safeJson(String(data));
        if (Array.isArray(frame) && (frame[3] === "session_event" || frame[3] === "sealed_event")) entry.pushes++;
      });
    }
  }
  return TappedWebSocket as unknown as WebSocketConstructor;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
