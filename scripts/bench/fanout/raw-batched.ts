// A second raw baseline (BENCH_BASELINE_BATCHED=1): the broadcaster that keeps the rate the way the bridge does. Each
// event is framed once; when the loop runs late, every slot already due is sent in the same turn, each socket corked
// for the turn and uncorked at its end, so its events leave in one writev. Without the server hop, the store and the
// channel layer, it is what one process on this machine can do with the bridge's write strategy.
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Sends `frames` frames to each of `groups.length` groups at `rate` per second per group, staggered like scheduleSlots;
 * `frameAt(index, dueAt)` builds the complete WebSocket frame of a group's `index`-th event due at `dueAt` (wall ms).
 */
export async function rawPacedBatched(
  groups: readonly Socket[][],
  frames: number,
  rate: number,
  frameAt: (index: number, dueAt: number) => Buffer,
): Promise<void> {
  const total = frames * groups.length;
  const periodMs = 1000 / (rate * groups.length);
  const start = performance.now();
  let slot = 0;
  while (slot < total) {
    const corked = new Set<Socket>();
    for (; slot < total && slot * periodMs <= performance.now() - start; slot++) {
      const frame = frameAt(Math.floor(slot / groups.length), performance.timeOrigin + start + slot * periodMs);
      for (const socket of groups[slot % groups.length]!) {
        if (!corked.has(socket)) {
          socket.cork();
          corked.add(socket);
        }
        socket.write(frame);
      }
    }
    for (const socket of corked) socket.uncork();
    await sleep(Math.max(0, slot * periodMs - (performance.now() - start)));
  }
}
