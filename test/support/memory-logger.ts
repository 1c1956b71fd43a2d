// A bridge logger that keeps its records in memory: suites assert that an attack or a fault was logged.
import type { BridgeLogger, LogFields, LogLevel } from "../../bridge/log.ts";

export class MemoryLogger implements BridgeLogger {
  readonly records: Array<{ level: LogLevel; msg: string; fields: LogFields }> = [];
  log(level: LogLevel, msg: string, fields: LogFields = {}): void {
    this.records.push({ level, msg, fields });
  }
  has(msg: string): boolean {
    return this.records.some((record) => record.msg === msg);
  }
}
