// The API relay's bounds (docs/bridge.md "Relay"). Defaults suit a self-hosted server with a few phones; tests and
// the benchmark shrink or widen them through BridgeConfig.relay.
import { z } from "zod";
export interface RelayConfig {
  /** How long the bridge waits for the server's answer before telling the app `timeout`. */
  timeoutMs: number;
  /** Calls one socket may have waiting for their answer; the next is `rate_limited`. */
  inFlightPerSocket: number;
  /** Calls waiting on one server, all its devices together. */
  inFlightPerServer: number;
  /** Calls one socket may start per second (a fixed window of the injected clock). */
  perSocketPerSecond: number;
  /** Calls one server may be asked per second, all its devices together. */
  perServerPerSecond: number;
}

export const DEFAULT_RELAY_CONFIG: RelayConfig = {
  timeoutMs: 30_000,
  inFlightPerSocket: 16,
  inFlightPerServer: 256,
  perSocketPerSecond: 200,
  perServerPerSecond: 20_000,
};

const positive = z.number().int().min(1);

/** What BridgeConfig.relay may set: any of the bounds, strictly (an unknown key is a config error). */
export const relayConfigSchema = z
  .strictObject({
    timeoutMs: positive,
    inFlightPerSocket: positive,
    inFlightPerServer: positive,
    perSocketPerSecond: positive,
    perServerPerSecond: positive,
  })
  .partial();
