// Structured logs: one JSON object per line. Callers pass facts, never tokens, codes or credentials.
export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface BridgeLogger {
  log(level: LogLevel, msg: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function jsonLogger(minimum: LogLevel = "info", write: (line: string) => void = (line) => process.stdout.write(line)): BridgeLogger {
  return {
    log(level, msg, fields) {
      if (ORDER[level] < ORDER[minimum]) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
    },
  };
}
