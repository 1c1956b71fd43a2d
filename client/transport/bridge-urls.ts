// The bridge URLs a connection may use: one bridge, or the nodes of a bridge cluster (docs/bridge.md "Cluster").
// The connection uses one at a time, in the order given (the first is the preferred node), and moves to the next
// when the one in use fails; after the last it starts over at the first.
import { z } from "zod";

/** At most this many URLs: a list is a handful of nodes, and each failed one costs an attempt. */
export const MAX_BRIDGE_URLS = 16;

const bridgeUrlListSchema = z.array(z.string().trim().min(1)).min(1).max(MAX_BRIDGE_URLS);

/**
 * The URLs of `bridgeUrl`, a single URL or several separated by commas (as `bridge_url` in credentials may be), or
 * of a list given as such. Blank entries are dropped; no URL at all, or more than MAX_BRIDGE_URLS, throws a ZodError.
 */
export function bridgeUrlsOf(bridgeUrl: string | readonly string[]): string[] {
  const entries = typeof bridgeUrl === "string" ? bridgeUrl.split(",") : [...bridgeUrl];
  return bridgeUrlListSchema.parse(entries.map((entry) => entry.trim()).filter((entry) => entry !== ""));
}

/** The URL in use and the rotation to the next one. */
export class BridgeUrlRing {
  private index = 0;
  private readonly urls: readonly string[];

  constructor(bridgeUrl: string | readonly string[]) {
    this.urls = bridgeUrlsOf(bridgeUrl);
  }

  get current(): string {
    return this.urls[this.index]!;
  }

  /** Whether there is another URL to move to (a single URL is retried in place). */
  get rotates(): boolean {
    return this.urls.length > 1;
  }

  /** Moves to the next URL (wrapping around) and returns it. */
  advance(): string {
    this.index = (this.index + 1) % this.urls.length;
    return this.current;
  }
}
