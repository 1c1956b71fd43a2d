// The server process's log: pino, with the same fields as the bridge's (bridge/log.ts builds its twin; the two
// processes share no code): `level` (pino's number), `time` (epoch ms), `service`, `msg`, then the record's facts.
// Pretty (pino-pretty) when stdout is a terminal, JSON lines otherwise. A stdout whose reader went away (EPIPE) costs
// the log, not the process. On a terminal a person reads it: one line per HTTP request would bury what matters, so
// there the request lines (http/request-log.ts) are written at debug; JSON lines keep them at info for machines.
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

export interface ProcessLogOptions {
  level?: string;
  /** Where lines go; process.stdout unless a test passes its own. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Defaults to whether the stream is a terminal. */
  pretty?: boolean;
}

/** The message of http/request-log.ts's line. */
const REQUEST_LINE = "request completed";
const INFO = 30;

export function processLog({
  level = "info",
  stream = process.stdout,
  pretty: isPretty = stream.isTTY === true,
}: ProcessLogOptions = {}): Logger {
  stream.on("error", () => undefined);
  const destination = isPretty ? pretty({ destination: stream, colorize: true, sync: true }) : stream;
  const hooks: pino.LoggerOptions["hooks"] = isPretty
    ? {
        logMethod(args, method, methodLevel) {
          // A request line at info goes out at debug instead (it calls this hook again, at debug's level).
          if (methodLevel === INFO && args[1] === REQUEST_LINE) return this.debug(...(args as [object, string]));
          return method.apply(this, args);
        },
      }
    : undefined;
  return pino({ level, base: { service: "server" }, ...(hooks ? { hooks } : {}) }, destination);
}
