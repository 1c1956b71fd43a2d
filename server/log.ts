// The server process's log: pino, with the same fields as the bridge's (bridge/log.ts builds its twin; the two
// processes share no code): `level` (pino's number), `time` (epoch ms), `service`, `msg`, then the record's facts.
// Pretty (pino-pretty) when stdout is a terminal, JSON lines otherwise. A stdout whose reader went away (EPIPE) costs
// the log, not the process.
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

export interface ProcessLogOptions {
  level?: string;
  /** Where lines go; process.stdout unless a test passes its own. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Defaults to whether the stream is a terminal. */
  pretty?: boolean;
}

export function processLog({ level = "info", stream = process.stdout, pretty: isPretty = stream.isTTY === true }: ProcessLogOptions = {}): Logger {
  stream.on("error", () => undefined);
  const destination = isPretty ? pretty({ destination: stream, colorize: true, sync: true }) : stream;
  return pino({ level, base: { service: "server" } }, destination);
}
