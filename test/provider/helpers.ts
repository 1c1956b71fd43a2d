// Shared test helpers: a controllable clock, the file's scripted backend, settings for a scripted backend, and a delta collector.
import type { Clock } from "../../server/clock.ts";
import { createProvider, type CreateProviderDeps } from "../../server/provider/provider.ts";
import { PacingRegistry } from "../../server/provider/pacing.ts";
import {
  providerSettingsSchema,
  type ProviderSettings,
  type ProviderSettingsInput,
} from "../../server/provider/settings.ts";
import type { ProviderDelta, ProviderRequest } from "../../server/provider/types.ts";
import { ProviderError } from "../../server/provider/errors.ts";
import type { Message } from "../../client/wire/messages.ts";
import { afterAll, beforeAll } from "vitest";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";

/**
 * Sleeps shorter than `holdFromMs` resolve at once and advance virtual time (retry and pacing delays, recorded
 * in `waits`); longer ones (timeouts, idle watchdogs) are held until the test fires them.
 */
export class TestClock implements Clock {
  t = 1_700_000_000_000;
  readonly waits: number[] = [];
  private held: Array<{ ms: number; deadline: number; resolve: () => void }> = [];
  private onHold: Array<() => void> = [];

  constructor(private readonly holdFromMs = 20_000) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new Error("aborted"));
    if (ms < this.holdFromMs) {
      this.waits.push(ms);
      this.t += ms;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = { ms, deadline: this.t + ms, resolve };
      this.held.push(entry);
      for (const wake of this.onHold.splice(0)) wake();
      signal?.addEventListener(
        "abort",
        () => {
          this.held = this.held.filter((e) => e !== entry);
          reject(new Error("aborted"));
        },
        { once: true },
      );
    });
  }

  get heldCount(): number {
    return this.held.length;
  }

  /** Resolves once a sleep is held (at once if one already is): a timer the test means to fire is armed. */
  whenHeld(): Promise<void> {
    if (this.held.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.onHold.push(resolve));
  }

  /** Fires every held sleep (of length `ms` when given): time jumps to its deadline. */
  fireHeld(ms?: number): number {
    const due = this.held.filter((e) => ms === undefined || e.ms === ms);
    this.held = this.held.filter((e) => !due.includes(e));
    for (const entry of due) {
      this.t = Math.max(this.t, entry.deadline);
      entry.resolve();
    }
    return due.length;
  }
}

export function settingsFor(baseUrl: string, extra: Partial<ProviderSettingsInput> = {}): ProviderSettings {
  return providerSettingsSchema.parse({
    provider: "reference_compatible",
    model: "test-model",
    base_url: baseUrl,
    ...extra,
  });
}

export interface Collected {
  deltas: ProviderDelta[];
  done: Extract<ProviderDelta, { type: "done" }> | undefined;
  error: ProviderError | undefined;
}

/** Runs a completion to its end; a ProviderError is captured, anything else fails the test. */
export async function collect(
  iterable: AsyncIterable<ProviderDelta>,
  onDelta?: (delta: ProviderDelta) => void | Promise<void>,
): Promise<Collected> {
  const deltas: ProviderDelta[] = [];
  try {
    for await (const delta of iterable) {
      deltas.push(delta);
      await onDelta?.(delta);
    }
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { deltas, done: undefined, error };
  }
  const last = deltas[deltas.length - 1];
  return { deltas, done: last?.type === "done" ? last : undefined, error: undefined };
}

export const user = (content: string, metadata?: Record<string, unknown>): Message =>
  metadata ? { role: "user", content, metadata } : { role: "user", content };

export interface RunOptions extends Partial<Omit<ProviderRequest, "signal">> {
  signal?: AbortSignal;
}

/** A provider with its own pacing registry (tests stay independent) and a TestClock. */
export function makeProvider(settings: ProviderSettings, deps: Partial<CreateProviderDeps> = {}) {
  const clock = (deps.clock as TestClock | undefined) ?? new TestClock();
  const provider = createProvider(settings, { clock, pacing: new PacingRegistry(), ...deps });
  const run = (options: RunOptions = {}) =>
    collect(
      provider.complete({ messages: [user("hi")], stream: true, signal: new AbortController().signal, ...options }),
    );
  return { provider, clock, run };
}

export const contentOf = (c: Collected) =>
  c.deltas
    .filter((d) => d.type === "content")
    .map((d) => (d as { text: string }).text)
    .join("");

/** The calling file's scripted backend: started before its first test, closed after its last. */
export function sharedBackend(): { readonly backend: ScriptedBackend } {
  let backend: ScriptedBackend | undefined;
  beforeAll(async () => {
    backend = await startScriptedBackend();
  });
  afterAll(() => backend?.close());
  return {
    get backend() {
      if (!backend) throw new Error("sharedBackend: the backend starts in beforeAll");
      return backend;
    },
  };
}
