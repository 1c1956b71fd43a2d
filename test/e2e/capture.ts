// Everything the bridge could learn, gathered for the end-to-end suites: every frame it receives (decoded, from the
// server's and the apps' sockets) and every frame it writes (framed bytes, server→peer frames are unmasked), its
// replay buffers, the files in its data dir and its log records. A plaintext marker found in any of these is one
// the bridge saw.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Router } from "../../bridge/channels/router.ts";
import { Connection } from "../../bridge/socket/connection.ts";
import type { RunningBridge } from "../../bridge/bridge.ts";
import type { BufferedEvent } from "../../bridge/fanout/replay-buffer.ts";
import type { MemoryLogger } from "../support/memory-logger.ts";
import type { SealedEvent } from "../../client/wire/e2e.ts";

export class BridgeCapture {
  readonly frames: string[] = [];
  private readonly restore: Array<() => void> = [];

  /** Starts recording every frame of every bridge in this process (the prototypes are shared). */
  static install(): BridgeCapture {
    const capture = new BridgeCapture();
    const handle = Router.prototype.handle;
    Router.prototype.handle = function (this: Router, ...args: Parameters<Router["handle"]>) {
      capture.frames.push(JSON.stringify(args[1]));
      return handle.apply(this, args);
    };
    const sendFramed = Connection.prototype.sendFramed;
    Connection.prototype.sendFramed = function (this: Connection, frame: Buffer) {
      capture.frames.push(frame.toString("utf8"));
      return sendFramed.call(this, frame);
    };
    capture.restore.push(
      () => (Router.prototype.handle = handle),
      () => (Connection.prototype.sendFramed = sendFramed),
    );
    return capture;
  }

  uninstall(): void {
    for (const undo of this.restore.splice(0)) undo();
  }

  /** Every place the bridge holds data, as text: frames, replay buffers, data-dir files, log records. */
  everything(bridge: RunningBridge, dataDir: string, log: MemoryLogger): { where: string; text: string }[] {
    const places = this.frames.map((text, index) => ({ where: `frame ${index}`, text }));
    for (const serverId of ["srv1"]) {
      const state = bridge.core.registry.get(serverId);
      // The buffer's whole array (evicted slots are undefined): what a bridge's memory holds.
      const held = ((state?.buffer as unknown as { items: Array<BufferedEvent | undefined> }) ?? { items: [] }).items;
      for (const event of held.filter((item) => item !== undefined))
        places.push({ where: `buffer ${event.id}`, text: event.forms.map((form) => form.json).join("") });
    }
    for (const file of filesUnder(dataDir)) places.push({ where: file, text: readFileSync(file, "utf8") });
    places.push({ where: "log", text: JSON.stringify(log.records) });
    return places;
  }
}

function filesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...filesUnder(path));
    else files.push(path);
  }
  return files;
}

/** The bridge's whole replay buffer of the server srv1, sealed forms. */
export function bufferedSealed(bridge: RunningBridge): SealedEvent[] {
  const items = (bridge.core.registry.get("srv1")!.buffer as unknown as { items: Array<BufferedEvent | undefined> })
    .items;
  return items
    .flatMap((item) => item?.forms.filter((form) => form.mode === "e2e") ?? [])
    .map((form) => JSON.parse(form.json) as SealedEvent);
}
