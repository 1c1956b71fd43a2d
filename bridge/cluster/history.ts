// Each server's replay history in Redis: a Stream of its last events and a small meta hash, written only by the node
// holding the server's link, read by any node a join with since_id reaches. Stream entry ids are the event ids
// (`<n>-1`), so "after since_id" is one exclusive XRANGE. Every entry carries `prev`, the id it follows: events
// between `prev` and it do not exist. A replay is complete only when the first entry after since_id follows it
// (prev ≤ since_id) and each next entry follows the one before: what was trimmed (the bounds), lost (Redis restarted
// empty) or never came (a hole) shows as a broken chain, and the join is answered `gap`.
//
// Appending is one Lua script, atomic: XADD, trim to both bounds (events and payload bytes, exactly), update the
// meta, count it, and PUBLISH it on the events channel, so every node sees events in the order the stream holds them.
import type { Redis } from "ioredis";
import type { BufferedEvent } from "../fanout/replay-buffer.ts";
import type { HistoryRead } from "../state/shared-state.ts";
import type { NodeRedis } from "./keys.ts";
import { LuaScript } from "./lua-script.ts";
import { decodeForms, encodeClusterEvent, encodeClusterReset, encodeForms } from "./wire.ts";

const APPEND = new LuaScript(`
local added = redis.pcall('XADD', KEYS[1], ARGV[1], 'id', ARGV[2], 'prev', ARGV[3], 'p', ARGV[4], 's', ARGV[10])
if type(added) == 'table' and added.err then return 0 end
local bytes = redis.call('HINCRBY', KEYS[2], 'bytes', string.len(ARGV[4]))
redis.call('HSET', KEYS[2], 'last_id', ARGV[2], 'epoch', ARGV[7])
local maxEvents = tonumber(ARGV[5])
local maxBytes = tonumber(ARGV[6])
while redis.call('XLEN', KEYS[1]) > maxEvents or bytes > maxBytes do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
  if #oldest == 0 then break end
  local fields = oldest[1][2]
  local size = 0
  for i = 1, #fields, 2 do if fields[i] == 'p' then size = string.len(fields[i + 1]) end end
  bytes = redis.call('HINCRBY', KEYS[2], 'bytes', -size)
  redis.call('XDEL', KEYS[1], oldest[1][1])
end
redis.call('INCR', KEYS[3])
redis.call('PUBLISH', ARGV[8], ARGV[9])
return 1
`);

// Gone ids older than the stream's oldest entry are pruned (no replay can start before it).
const PRUNE_GONE = `
local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
if #oldest > 0 then
  local oldestId = nil
  local fields = oldest[1][2]
  for i = 1, #fields, 2 do if fields[i] == 'id' then oldestId = fields[i + 1] end end
  for _, id in ipairs(redis.call('HKEYS', KEYS[3])) do
    if oldestId and id < oldestId then redis.call('HDEL', KEYS[3], id) end
  end
end
`;

// One entry leaves the stream; its place in the chain is kept in the gone hash (id → prev), so a replay across it is
// still complete.
const DROP_ENTRY = `
local function drop(entry)
  local fields = entry[2]
  local values = {}
  for i = 1, #fields, 2 do values[fields[i]] = fields[i + 1] end
  redis.call('HSET', KEYS[3], values['id'], values['prev'])
  redis.call('HINCRBY', KEYS[2], 'bytes', -string.len(values['p'] or ''))
  redis.call('XDEL', KEYS[1], entry[1])
  return values
end
`;

// A deleted session's events (those whose plain form named it) leave the stream.
const FORGET = new LuaScript(`${DROP_ENTRY}
local dropped = 0
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == 's' and fields[i + 1] == ARGV[1] then drop(entry); dropped = dropped + 1 end
  end
end
${PRUNE_GONE}
return dropped
`);

// The events the server named in a \`forget\` (ARGV: their stream ids) leave the stream, wherever they are in it.
const FORGET_IDS = new LuaScript(`${DROP_ENTRY}
local dropped = 0
for _, streamId in ipairs(ARGV) do
  local found = redis.call('XRANGE', KEYS[1], streamId, streamId)
  if #found > 0 then drop(found[1]); dropped = dropped + 1 end
end
${PRUNE_GONE}
return dropped
`);

const RESET = new LuaScript(`
redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2])
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[2], 'last_id', ARGV[1], 'epoch', ARGV[2], 'bytes', 0)
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`);

/** What Redis knows of a server's events: its store's epoch and the last id relayed. */
export interface HistoryMeta {
  epoch: string;
  lastId: string;
}

/** What a server history in Redis is built from. */
export interface HistoryOptions extends NodeRedis {
  bounds: { events: number; bytes: number };
}

export class History {
  constructor(private readonly options: HistoryOptions) {}

  /** Appends and publishes one event; `prev` is the id it follows. False when the stream already holds a newer id. */
  async append(serverId: string, event: BufferedEvent, prev: string, epoch: string): Promise<boolean> {
    const message = encodeClusterEvent(this.options.nodeId, serverId, event, prev);
    const keys = [
      this.options.keys.history(serverId),
      this.options.keys.historyMeta(serverId),
      this.options.keys.relayed,
    ];
    const args = [
      streamId(event.id),
      event.id,
      prev,
      encodeForms(event),
      this.options.bounds.events,
      this.options.bounds.bytes,
      epoch,
      this.options.keys.eventsChannel,
      message,
      event.sessionId ?? "",
    ];
    return (await APPEND.run(this.options.redis, keys, args)) === 1;
  }

  /** Starts the history over after `afterId` (the server's store changed, or the bridge lost track), telling every node. */
  async reset(serverId: string, epoch: string, afterId: string, storeChanged: boolean): Promise<void> {
    const message = encodeClusterReset(this.options.nodeId, serverId, epoch, afterId, storeChanged);
    await RESET.run(
      this.options.redis,
      [
        this.options.keys.history(serverId),
        this.options.keys.historyMeta(serverId),
        this.options.keys.historyGone(serverId),
      ],
      [afterId, epoch, this.options.keys.eventsChannel, message],
    );
  }

  /** Removes a deleted session's events from the stream, keeping their places in the chain; answers how many. */
  async forgetSession(serverId: string, sessionId: string): Promise<number> {
    const keys = [
      this.options.keys.history(serverId),
      this.options.keys.historyMeta(serverId),
      this.options.keys.historyGone(serverId),
    ];
    return Number(await FORGET.run(this.options.redis, keys, [sessionId]));
  }

  /** Removes the events the server named from the stream, keeping their places in the chain; answers how many. */
  async forgetEvents(serverId: string, eventIds: readonly string[]): Promise<number> {
    const keys = [
      this.options.keys.history(serverId),
      this.options.keys.historyMeta(serverId),
      this.options.keys.historyGone(serverId),
    ];
    return Number(await FORGET_IDS.run(this.options.redis, keys, eventIds.map(streamId)));
  }

  /**
   * An event arrived behind newer ones on the link (docs/bridge.md B40): the history cannot vouch for anything up to
   * `newestId` any more (the late event is missing from it), so replays from before it are gaps.
   */
  async cutBefore(serverId: string, newestId: string): Promise<void> {
    await this.options.redis.hset(this.options.keys.historyMeta(serverId), "covered_after", newestId);
  }

  async meta(serverId: string): Promise<HistoryMeta | undefined> {
    const [epoch, lastId] = await this.options.redis.hmget(this.options.keys.historyMeta(serverId), "epoch", "last_id");
    return epoch && lastId ? { epoch, lastId } : undefined;
  }

  /** The meta and, with `sinceId`, the events after it when the stream vouches for all of them (one MULTI: a consistent view). */
  async read(serverId: string, sinceId: string | undefined): Promise<HistoryRead> {
    const transaction = this.options.redis
      .multi()
      .hmget(this.options.keys.historyMeta(serverId), "epoch", "last_id", "covered_after");
    if (sinceId !== undefined)
      transaction
        .xrange(this.options.keys.history(serverId), `(${streamId(sinceId)}`, "+")
        .hgetall(this.options.keys.historyGone(serverId));
    const results = (await transaction.exec()) ?? [];
    for (const [error] of results) if (error) throw error;
    const [epoch, lastId, coveredAfter] = results[0]![1] as Array<string | null>;
    const meta = epoch && lastId ? { epoch, lastId } : undefined;
    if (sinceId === undefined || !meta) return { meta, events: undefined };
    if (coveredAfter && sinceId < coveredAfter) return { meta, events: undefined };
    const entries = (results[1]![1] as Array<[string, string[]]>).map(toEntry);
    const gone = Object.entries((results[2]?.[1] ?? {}) as Record<string, string>)
      .filter(([id]) => id > sinceId)
      .map(([id, prev]): Entry => ({ event: { id, audience: [], forms: [] }, prev, gone: true }));
    const chain =
      gone.length === 0 ? entries : [...entries, ...gone].sort((a, b) => (a.event.id < b.event.id ? -1 : 1));
    return { meta, events: continuousAfter(sinceId, meta.lastId, chain) };
  }
}

interface Entry {
  event: BufferedEvent;
  prev: string;
  /** A deleted session's event: a link of the chain, never replayed. */
  gone?: boolean;
}

/** The events after `sinceId` when they form an unbroken chain from it to the last id; undefined for a gap. */
function continuousAfter(sinceId: string, lastId: string, entries: Entry[]): BufferedEvent[] | undefined {
  if (entries.length === 0) return sinceId >= lastId ? [] : undefined;
  let follows = sinceId;
  for (const entry of entries) {
    if (entry.prev > follows) return undefined;
    follows = entry.event.id;
  }
  return follows === lastId ? entries.filter((entry) => !entry.gone).map((entry) => entry.event) : undefined;
}

function toEntry([, fields]: [string, string[]]): Entry {
  const values: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) values[fields[i]!] = fields[i + 1]!;
  return { event: decodeForms(values.id ?? "", values.p ?? ""), prev: values.prev ?? "" };
}

/** A Redis stream id for an event id (20 decimal digits, a safe integer): `<n>-1`, never the reserved 0-0. */
function streamId(eventId: string): string {
  return `${BigInt(eventId)}-1`;
}
