// A node's inbox: requests another node sends it (a frame for a server link this node holds, the answer to a
// request a node forwarded) and their replies, over Redis pub/sub on `…:inbox:<node id>`. A request nobody
// receives (its node is gone) is answered undefined at once; one unanswered within the timeout, undefined then.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { after, type Clock } from "../clock.ts";
import type { NodeRedis } from "./keys.ts";

const envelopeSchema = z.union([
  z.object({ id: z.string(), from: z.string(), request: z.unknown() }),
  z.object({ re: z.string(), reply: z.unknown() }),
]);

export type InboxHandler = (request: unknown, from: string) => Promise<unknown>;

/** What a node's inbox is built from. */
export interface InboxOptions extends NodeRedis {
  timeoutMs: number;
  clock: Clock;
  handle: InboxHandler;
  failed: (error: unknown) => void;
}

export class Inbox {
  private readonly waiting = new Map<string, { resolve: (reply: unknown) => void; cancelTimeout: () => void }>();

  constructor(private readonly options: InboxOptions) {}

  get channel(): string {
    return this.options.keys.inbox(this.options.nodeId);
  }

  /** Sends `request` to `node`'s inbox; resolves with its reply, or undefined (gone, or no answer in time). */
  async call(node: string, request: unknown): Promise<unknown> {
    const id = randomUUID();
    const reply = new Promise<unknown>((resolve) => {
      const cancelTimeout = after(this.options.clock, this.options.timeoutMs, () => this.settle(id, undefined));
      this.waiting.set(id, { resolve, cancelTimeout });
    });
    const receivers = await this.options.redis
      .publish(this.options.keys.inbox(node), JSON.stringify({ id, from: this.options.nodeId, request }))
      .catch((error: unknown) => {
        this.options.failed(error);
        return 0;
      });
    if (receivers === 0) this.settle(id, undefined);
    return reply;
  }

  /** A message on this node's inbox channel. */
  receive(text: string): void {
    let parsed;
    try {
      parsed = envelopeSchema.safeParse(JSON.parse(text));
    } catch {
      return;
    }
    if (!parsed.success) return;
    const message = parsed.data;
    if ("re" in message) return this.settle(message.re, message.reply);
    this.options
      .handle(message.request, message.from)
      .then((reply) =>
        this.options.redis.publish(this.options.keys.inbox(message.from), JSON.stringify({ re: message.id, reply })),
      )
      .catch(this.options.failed);
  }

  /** Every wait ends (the node is closing). */
  close(): void {
    for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
  }

  private settle(id: string, reply: unknown): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    waiter.cancelTimeout();
    this.waiting.delete(id);
    waiter.resolve(reply);
  }
}
