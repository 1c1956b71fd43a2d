// Opening sealed events (docs/security.md): a device paired end-to-end gets `sealed_event {event_id, key_id, nonce,
// ciphertext}` pushes and opens each before the sequencer, so listeners see exactly the events a plain device
// sees. Content keys come from GET /e2e/keys, each sealed to this device's key; an unknown key_id (the key rotated
// since the last fetch) is fetched, one fetch at a time, retried on the HTTP backoff a bounded number of times. A
// sealed event that does not open (altered, moved to another id, under another key) or whose key cannot be had is
// never delivered: it is reported and counted, and the caller fetches the real event over HTTP.
import type { CryptoModule } from "../wire/crypto/load.ts";
import { anyEventSchema, type AnyEvent } from "../wire/events.ts";
import type { SealedContentKey, SealedEvent } from "../wire/e2e.ts";
import { backoffDelay, sleep, type Timers } from "../util/timers.ts";

export interface SealedEventsOptions {
  /** The crypto primitives, loaded before the client starts (wire/crypto/load.ts). */
  crypto: CryptoModule;
  serverId: string;
  deviceId: string;
  deviceSecretKey: string;
  /** GET /e2e/keys through the client's request function (direct or relayed). */
  fetchKeys: (signal: AbortSignal) => Promise<SealedContentKey[]>;
  report: (message: string, detail: unknown) => void;
  timers: Timers;
  retryDelaysMs: readonly number[];
}

/** How many key fetches one unknown key_id gets before its event is fetched over HTTP instead. */
const KEY_FETCH_ATTEMPTS = 5;

export type Opened = AnyEvent | "unknown_key" | "refused";

export class SealedEvents {
  private readonly keys = new Map<number, Uint8Array>();
  private fetching: Promise<void> | undefined;
  /** Sealed events that did not open (a figure for tests and the app's diagnostics). */
  refused = 0;

  constructor(private readonly options: SealedEventsOptions) {}

  /** The event when its key is held; `unknown_key` to wait for the key; `refused` when it does not open. */
  openNow(envelope: SealedEvent): Opened {
    const key = this.keys.get(envelope.key_id);
    if (!key) return "unknown_key";
    let event: unknown;
    try {
      event = JSON.parse(this.options.crypto.openEvent(key, this.options.serverId, envelope));
    } catch (error) {
      return this.refuse("a sealed event did not open (altered, moved, or under another key); fetching it over HTTP", {
        envelope,
        error,
      });
    }
    const common = anyEventSchema.safeParse(event);
    if (!common.success || (event as AnyEvent).event_id !== envelope.event_id)
      return this.refuse("a sealed event holds no valid event; fetching it over HTTP", envelope);
    return event as AnyEvent;
  }

  /** Waits for the event's key (fetching it, bounded), then opens it; `refused` when that fails. Never rejects but on abort. */
  async openLater(envelope: SealedEvent, signal: AbortSignal): Promise<AnyEvent | "refused"> {
    for (let attempt = 0; attempt < KEY_FETCH_ATTEMPTS; attempt++) {
      if (attempt > 0) await sleep(this.options.timers, backoffDelay(this.options.retryDelaysMs, attempt - 1), signal);
      await this.fetchKeys(signal);
      if (this.keys.has(envelope.key_id)) {
        const opened = this.openNow(envelope);
        return opened === "unknown_key" ? "refused" : opened;
      }
    }
    return this.refuse("the content key of a sealed event could not be had; fetching the event over HTTP", envelope);
  }

  /** One fetch at a time: every event waiting for a key shares it. Failures are reported, never thrown. */
  private fetchKeys(signal: AbortSignal): Promise<void> {
    this.fetching ??= this.options
      .fetchKeys(signal)
      .then((keys) => this.take(keys))
      .catch((error: unknown) => this.options.report("fetching the content keys failed", error))
      .finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private take(keys: readonly SealedContentKey[]): void {
    const { deviceSecretKey, serverId, deviceId, crypto } = this.options;
    for (const { key_id, box } of keys) {
      if (this.keys.has(key_id)) continue;
      try {
        this.keys.set(key_id, crypto.openContentKey(deviceSecretKey, serverId, deviceId, key_id, box));
      } catch (error) {
        if (!(error instanceof crypto.CryptoError)) throw error;
        this.refuse("a content key did not open (not sealed to this device by its server); ignored", { key_id });
      }
    }
  }

  private refuse(message: string, detail: unknown): "refused" {
    this.refused++;
    this.options.report(message, detail);
    return "refused";
  }
}
