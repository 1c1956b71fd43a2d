// The default socket cap comes from the process's file-descriptor limit: every socket holds one descriptor, and once
// they run out the kernel refuses new connections with a reset (accept fails with EMFILE), /health included, before
// the bridge can answer its documented 503. So the cap leaves headroom for what else holds descriptors (stdio, the
// event loop's own, the listening socket, servers.json writes, /health and /metrics requests).
import { readFileSync } from "node:fs";

/** The cap when the limit cannot be read (not Linux), and the most the default ever is. */
export const DEFAULT_MAX_SOCKETS = 100_000;
/** Descriptors kept for everything but sockets: at least this many, or a tenth of the limit if that is more. */
const MIN_HEADROOM = 64;

/**
 * The soft RLIMIT_NOFILE of this process, read from /proc/self/limits (Node raises the soft limit to the hard one
 * at start, so this is what the process really has); undefined where there is no such file or it says "unlimited".
 */
export function readFdLimit(read: () => string = () => readFileSync("/proc/self/limits", "utf8")): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+)\s/m.exec(text)?.[1];
  return soft === undefined ? undefined : Number(soft);
}

/** The default BRIDGE_MAX_SOCKETS for a descriptor limit. */
export function socketCapFor(fdLimit: number | undefined): number {
  if (fdLimit === undefined) return DEFAULT_MAX_SOCKETS;
  const headroom = Math.max(MIN_HEADROOM, Math.ceil(fdLimit / 10));
  return Math.min(DEFAULT_MAX_SOCKETS, Math.max(1, fdLimit - headroom));
}
