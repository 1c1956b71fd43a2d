// A bridge logger that keeps its records in memory: suites assert that an attack or a fault was logged.
import type { BridgeLogger, LogFields, LogLevel, LogMethod } from "../../bridge/log.ts";

export class MemoryLogger implements BridgeLogger {
  readonly records: Array<{ level: LogLevel; msg: string; fields: LogFields }> = [];
  readonly debug: LogMethod = (fields, msg) => this.records.push({ level: "debug", msg, fields });
  readonly info: LogMethod = (fields, msg) => this.records.push({ level: "info", msg, fields });
  readonly warn: LogMethod = (fields, msg) => this.records.push({ level: "warn", msg, fields });
  readonly error: LogMethod = (fields, msg) => this.records.push({ level: "error", msg, fields });
  has(msg: string): boolean {
    return this.records.some((record) => record.msg === msg);
  }
}
