// The sealed blobs of share links as the bridge serves them (docs/bridge.md "Share links"). The server decides, on
// every read, whether a link is live: the bridge asks it each time, so a link revoked, expired, or ended with its
// chat is refused as soon as the server has ended it (the server ends it before its revoke call answers). What the
// bridge keeps is only bytes: a blob already fetched stays in a byte-bounded LRU cache, and a read of a cached one asks
// the server for the part at its end (no bytes, the server's word that the link is live and how long its blob is).
// A blob not cached is fetched part by part from the server whose link has it; the first read asks every linked
// server (a token names no server; 128 random bits make two servers' tokens collide never).
//
// The blob is sealed under a key only the link's fragment carries: the bridge never sees a key, and holds nothing
// readable of a chat.
import { LRUCache } from "lru-cache";
import type { BridgeCore } from "../core.ts";
import type { ServerState } from "../state/registry.ts";
import { BlobAsks, type PartAnswer } from "./blob-asks.ts";

export interface SharedBlobLimits {
  /** Bytes of sealed blobs kept for later reads, all links together. */
  cacheBytes: number;
  /** Blobs fetched at once (each holds up to a whole blob in memory while it comes); more wait for none: refused. */
  maxFetches: number;
  /** How long one part may take to come (the bridge's clock). */
  timeoutMs: number;
}

export const DEFAULT_SHARED_BLOB_LIMITS: SharedBlobLimits = {
  cacheBytes: 64 * 1024 * 1024,
  maxFetches: 4,
  timeoutMs: 30_000,
};

/** A read's outcome: the blob's JSON text, no live link, or no server could say (none linked, none answered, busy). */
export type BlobRead = { kind: "found"; text: string } | { kind: "not_found" } | { kind: "unavailable" };

/** The server that has the link, and its first part. */
interface FirstPart {
  kind: "first";
  state: ServerState;
  answer: Extract<PartAnswer, { status: "found" }>;
}

interface Cached {
  serverId: string;
  text: string;
}

export class SharedBlobs {
  private readonly asks: BlobAsks;
  private readonly cache: LRUCache<string, Cached>;
  private fetching = 0;

  constructor(
    private readonly core: BridgeCore,
    private readonly limits: SharedBlobLimits = DEFAULT_SHARED_BLOB_LIMITS,
  ) {
    this.asks = new BlobAsks(core, limits.timeoutMs);
    this.cache = new LRUCache<string, Cached>({
      maxSize: limits.cacheBytes,
      sizeCalculation: (entry) => Math.max(1, entry.text.length),
    });
  }

  /** The live link's blob (`token` is a well-formed token). */
  async read(token: string): Promise<BlobRead> {
    const cached = this.cache.get(token);
    if (cached) return this.revalidate(token, cached);
    if (this.fetching >= this.limits.maxFetches) return { kind: "unavailable" };
    this.fetching++;
    try {
      return await this.fetch(token);
    } finally {
      this.fetching--;
    }
  }

  /** What the cache holds now, for tests that look for plaintext in it. */
  cachedTexts(): string[] {
    return [...this.cache.values()].map((entry) => entry.text);
  }

  /** The server says whether the cached blob is still live; dropped at once when it is not. */
  private async revalidate(token: string, cached: Cached): Promise<BlobRead> {
    const state = this.core.registry.get(cached.serverId);
    const answer = state ? await this.asks.ask(state, token, cached.text.length) : { status: "away" as const };
    if (answer.status === "found" && answer.total === cached.text.length) return { kind: "found", text: cached.text };
    this.cache.delete(token);
    return answer.status === "away" ? { kind: "unavailable" } : { kind: "not_found" };
  }

  private async fetch(token: string): Promise<BlobRead> {
    const first = await this.firstPart(token);
    if (first.kind !== "first") return first;
    const { state, answer } = first;
    let text = answer.text;
    while (text.length < answer.total) {
      const next = await this.asks.ask(state, token, text.length);
      if (next.status !== "found") return next.status === "away" ? { kind: "unavailable" } : { kind: "not_found" };
      if (next.offset !== text.length || next.total !== answer.total || next.text === "") return this.odd(state);
      text += next.text;
    }
    if (text.length !== answer.total) return this.odd(state);
    this.cache.set(token, { serverId: state.id, text });
    return { kind: "found", text };
  }

  /**
   * The first part, asked of every server known here at once: the one that has the link answers it. Not found when
   * some server answered and none has it; unavailable when none could answer (no link anywhere, or no word in time).
   */
  private async firstPart(token: string): Promise<FirstPart | Exclude<BlobRead, { kind: "found" }>> {
    const states = [...this.core.registry.states()];
    const answers = await Promise.all(
      states.map(async (state) => ({ state, answer: await this.asks.ask(state, token, 0) })),
    );
    for (const { state, answer } of answers)
      if (answer.status === "found" && answer.offset === 0) return { kind: "first", state, answer };
    return answers.some(({ answer }) => answer.status === "not_found")
      ? { kind: "not_found" }
      : { kind: "unavailable" };
  }

  /** A server that answered parts that do not fit together: logged, and the read fails without keeping anything. */
  private odd(state: ServerState): BlobRead {
    this.core.log.warn({ server_id: state.id }, "share_result parts do not fit together");
    return { kind: "unavailable" };
  }
}
