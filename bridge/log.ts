// The bridge's log: pino, with the same fields as the server's (server/log.ts builds its twin; the two processes share
// no code): `level` (pino's number), `time` (epoch ms), `service`, `msg`, then the record's facts. Pretty
// (pino-pretty) when stdout is a terminal, JSON lines otherwise. Callers pass facts, never tokens, codes or
// credentials, through `BridgeLogger`: pino's call shape, `log.warn({facts}, "constant message")`, as the server's.
//
// A peer decides how often it is refused, so each peer gets a log budget (`PeerLogBudget`): a record naming a socket
// (or, before the upgrade, only an address) counts against that peer's lines per window; the rest are counted and
// summarized, one `log lines suppressed` record per message, when the peer's window ends or its socket closes. Before,
// one socket sending refused frames as fast as it could wrote 600-790 KB of log a second.
import pino from "pino";
import pretty from "pino-pretty";
import type { Clock } from "./clock.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** One level's method: the facts first, then a constant message (pino's shape, the server's too). */
export type LogMethod = (fields: LogFields, msg: string) => void;

export type BridgeLogger = Record<LogLevel, LogMethod>;

const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** A logger whose every level writes through `write`. */
export function loggerFrom(write: (level: LogLevel, fields: LogFields, msg: string) => void): BridgeLogger {
  return Object.fromEntries(
    LEVELS.map((level) => [level, (fields: LogFields, msg: string) => write(level, fields, msg)]),
  ) as BridgeLogger;
}

export interface ProcessLogOptions {
  level?: LogLevel;
  /** Where lines go; process.stdout unless a test passes its own. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Defaults to whether the stream is a terminal. */
  pretty?: boolean;
}

/**
 * The bridge process's logger. A stdout whose reader went away (a log collector that died, a closed pipe) fails
 * writes with EPIPE, emitted as an `error` event that would end the process; the bridge goes on without its log.
 */
export function processLog({
  level = "info",
  stream = process.stdout,
  pretty: isPretty = stream.isTTY === true,
}: ProcessLogOptions = {}): BridgeLogger {
  stream.on("error", () => undefined);
  const destination = isPretty ? pretty({ destination: stream, colorize: true, sync: true }) : stream;
  const logger = pino({ level, base: { service: "bridge" } }, destination);
  return loggerFrom((recordLevel, fields, msg) => logger[recordLevel](fields, msg));
}

/** Lines one peer may log per window; the rest are summarized. */
export interface LogBudget {
  linesPerPeer: number;
  windowMs: number;
}

/** Peers tracked at once; past this, records of new peers share one budget (a flood of distinct addresses). */
const MAX_PEERS = 100_000;
const OVERFLOW_PEER = "overflow";

interface PeerWindow {
  /** Who the summary names: `{socket}`, `{address}`, or `{peers: "overflow"}`. */
  who: LogFields;
  start: number;
  written: number;
  /** msg → records not written in this window. */
  suppressed: Map<string, number>;
}

export class PeerLogBudget implements BridgeLogger {
  private readonly peers = new Map<string, PeerWindow>();
  private lastSweep: number;
  readonly debug: LogMethod = (fields, msg) => this.write("debug", fields, msg);
  readonly info: LogMethod = (fields, msg) => this.write("info", fields, msg);
  readonly warn: LogMethod = (fields, msg) => this.write("warn", fields, msg);
  readonly error: LogMethod = (fields, msg) => this.write("error", fields, msg);

  constructor(
    private readonly inner: BridgeLogger,
    private readonly clock: Clock,
    private readonly budget: LogBudget,
  ) {
    this.lastSweep = clock.now();
  }

  private write(level: LogLevel, fields: LogFields, msg: string): void {
    const now = this.clock.now();
    this.sweep(now);
    const peer = peerOf(fields);
    if (peer === undefined) return this.inner[level](fields, msg);
    const window = this.windowOf(peer.key, peer.who, now);
    if (window.written < this.budget.linesPerPeer) {
      window.written++;
      return this.inner[level](fields, msg);
    }
    window.suppressed.set(msg, (window.suppressed.get(msg) ?? 0) + 1);
  }

  /** The socket closed: what it had suppressed is summarized now, and it is forgotten. */
  forgetSocket(socketId: number): void {
    this.end(`socket:${socketId}`);
  }

  private windowOf(peer: string, who: LogFields, now: number): PeerWindow {
    let window = this.peers.get(peer);
    if (window && now - window.start >= this.budget.windowMs) {
      this.end(peer);
      window = undefined;
    }
    if (window) return window;
    if (this.peers.size >= MAX_PEERS && peer !== OVERFLOW_PEER)
      return this.windowOf(OVERFLOW_PEER, { peers: OVERFLOW_PEER }, now);
    window = { who, start: now, written: 0, suppressed: new Map() };
    this.peers.set(peer, window);
    return window;
  }

  /** Once a window, ends the windows of peers that went quiet, so their summaries come out and memory stays bounded. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.budget.windowMs) return;
    this.lastSweep = now;
    for (const [peer, window] of this.peers) if (now - window.start >= this.budget.windowMs) this.end(peer);
  }

  private end(peer: string): void {
    const window = this.peers.get(peer);
    if (!window) return;
    this.peers.delete(peer);
    for (const [msg, count] of window.suppressed)
      this.inner.warn({ ...window.who, suppressed_msg: msg, count }, "log lines suppressed");
  }
}

/** Whose budget a record counts against: its socket, else its address (refusals before the upgrade), else nobody. */
function peerOf(fields: LogFields): { key: string; who: LogFields } | undefined {
  if (typeof fields.socket === "number") return { key: `socket:${fields.socket}`, who: { socket: fields.socket } };
  if (typeof fields.address === "string") return { key: `address:${fields.address}`, who: { address: fields.address } };
  return undefined;
}
