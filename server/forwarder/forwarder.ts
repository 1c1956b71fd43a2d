// The server's side of the bridge (docs/bridge.md "Layout"), in named parts: the link owns the phoenix socket and
// the `server:<id>` channel (bridge-link.ts); the event pump pushes the stored events from the cursor
// (event-pump.ts, cursor.ts); the grants feed hands the bridge the device/code grants on every change (grants.ts);
// the pairing answers redeem the codes the bridge forwards (pairing-answers.ts); the API relay runs the calls apps
// make through the bridge (api-relay.ts); the share answers hand it share links' sealed blobs (share-answers.ts). This file builds them and orders
// what each does on a join. While the bridge is down nothing here blocks HTTP: events simply wait in the store.
import { linkAppConfig } from "./app-config.ts";
import { devicesSeenSchema } from "../../client/wire/frames.ts";
import { generateToken } from "../auth/tokens.ts";
import type { ServerContext } from "../context.ts";
import { Meta } from "../db/meta.ts";
import { noteDevicesSeen } from "../pairing/pairing-service.ts";
import { pairingUrls } from "../pairing/urls.ts";
import { ApiRelayAnswers, type RoutingTarget } from "./api-relay.ts";
import { BridgeLink } from "./bridge-link.ts";
import { ForwarderCursor } from "./cursor.ts";
import { EventPump } from "./event-pump.ts";
import { AUDIENCE_FEATURE } from "../../client/wire/audience.ts";
import { AudienceLink, REFUSED_RETRY_MS } from "./audience-link.ts";
import { EventFormer } from "./event-forms.ts";
import { GrantsFeed } from "./grants.ts";
import { PairingAnswers } from "./pairing-answers.ts";
import { serveShareLinks } from "./share-answers.ts";

export interface ForwarderOptions {
  /** Where the bridge listens (main passes BRIDGE_URL); absent or empty means no bridge. */
  bridgeUrl?: string;
  /** Pushes in flight before waiting for acks. */
  window?: number;
  /** An ack slower than this means the link is stuck: reconnect and resume from the bridge's word. */
  ackTimeoutMs?: number;
  /** Reconnect backoff (tests shorten it); defaults to the phoenix client's. */
  reconnectAfterMs?: (tries: number) => number;
  /** How often the link heartbeats (at most 5 s); a heartbeat unanswered by the next one reconnects. */
  heartbeatMs?: number;
  /** The HTTP app, to run the calls apps relay through the bridge (api-relay.ts); absent: the server relays none. */
  app?: RoutingTarget;
  /**
   * false: the link declares no audiences and pushes the base protocol (one audience), as a server before people did.
   * For the fan-out benchmark's comparison only: with more than one person it is refused like a bridge without them.
   */
  audiences?: boolean;
}

export interface Forwarder {
  stop(): Promise<void>;
}

const DEFAULT_WINDOW = 512;
const DEFAULT_ACK_TIMEOUT_MS = 30_000;

export function startForwarder(ctx: ServerContext, options: ForwarderOptions = {}): Forwarder {
  const url = options.bridgeUrl ?? "";
  if (url === "") return { stop: async () => undefined };
  const forwarder = new BridgeForwarder(ctx, url, options);
  ctx.shutdown.addEventListener("abort", () => void forwarder.stop(), { once: true });
  return forwarder;
}

class BridgeForwarder implements Forwarder {
  private readonly link: BridgeLink;
  private readonly cursor: ForwarderCursor;
  private readonly pump: EventPump;
  private readonly grants: GrantsFeed;
  private readonly unsubscribeCommits: () => void;
  private stopped = false;

  constructor(ctx: ServerContext, url: string, options: ForwarderOptions) {
    const credential = new Meta(ctx.db).getOrCreate("bridge_credential", () => generateToken(32));
    this.cursor = new ForwarderCursor(ctx.db, ctx.events.epoch, ctx.log);
    // Params are a function: every rejoin carries the current cursor and grants. Without grants the join lacks
    // `devices` and `codes`, the bridge refuses it, and phoenix rejoins after its backoff (never empty grants: the
    // bridge would drop every device).
    const appConfig = linkAppConfig(ctx, url);
    const declared = options.audiences !== false;
    const bridgeFeatures = () => (declared ? this.link.features : []);
    const joinParams = () => ({
      credential,
      epoch: ctx.events.epoch,
      cursor: this.cursor.formatted,
      ...(declared ? { features: [AUDIENCE_FEATURE] } : {}),
      ...this.grants.read(),
      ...(appConfig ? { app_config: appConfig } : {}),
    });
    this.link = new BridgeLink(
      {
        url,
        topic: `server:${ctx.serverId}`,
        joinParams,
        reconnectAfterMs: options.reconnectAfterMs,
        heartbeatMs: options.heartbeatMs,
      },
      ctx.log,
    );
    const audiences = ctx.e2e.audiences;
    this.grants = new GrantsFeed(ctx.pairing, audiences, this.link, ctx.log);
    const audienceLink = new AudienceLink(audiences, new EventFormer(ctx.e2e, audiences, ctx.log), ctx.log);
    const refuse = () => this.link.refuse(REFUSED_RETRY_MS, ctx.clock);
    this.pump = new EventPump(
      this.link,
      ctx.events,
      this.cursor,
      ctx.log,
      {
        window: options.window ?? DEFAULT_WINDOW,
        ackTimeoutMs: options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS,
      },
      (event) => audienceLink.formsFor(event, bridgeFeatures()),
      refuse,
    );
    const answers = new PairingAnswers(ctx.pairing, ctx.e2e, this.link, pairingUrls(ctx).serverUrl, ctx.log);

    this.link.onJoin({
      joined: (resumeAfter) => {
        if (!audienceLink.allows(bridgeFeatures())) return refuse();
        this.pump.begin(resumeAfter);
        // The join's params were read when the join was queued, possibly before the socket opened: send fresh grants.
        this.grants.push();
        this.pump.pump();
      },
      lost: () => {
        this.pump.end();
        // Without a link nobody can say which devices are connected: the device list says "unknown".
        ctx.pairing.setConnected(undefined);
      },
    });
    this.link.on("pair_request", (payload) => answers.answer(payload));
    if (options.app) {
      const relayed = new ApiRelayAnswers(ctx, options.app, this.link);
      this.link.on("api_request", (payload) => relayed.answer(payload));
    }
    serveShareLinks(ctx, this.link);
    this.link.on("devices_seen", (payload) => {
      const parsed = devicesSeenSchema.safeParse(payload);
      if (parsed.success) {
        noteDevicesSeen(ctx, parsed.data.device_ids);
        if (parsed.data.connected) ctx.pairing.setConnected(parsed.data.connected);
      } else
        ctx.log.warn(
          { problem: parsed.error.issues[0]?.message },
          "bridge sent a devices_seen the server does not understand",
        );
    });
    // Woken by the log's follower at each commit; it reads from the bridge's cursor through list() (event-pump.ts).
    this.unsubscribeCommits = ctx.events.follower.onCommitted(() => this.pump.pump());
    this.link.connect();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.pump.stop();
    this.unsubscribeCommits();
    this.grants.stop();
    this.cursor.close();
    await this.link.close();
  }
}
