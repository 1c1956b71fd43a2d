// A server with push configured against the loopback push service: paired devices (through the pairing service, as
// the bridge's pairing answer does), their browser subscriptions, and readers of what each device received.
import type { Clock } from "../../../server/clock.ts";
import type { ConfigInput } from "../../../server/config/schema.ts";
import type { PushService } from "../../../server/push/push-service.ts";
import { createNotificationApi, type NotificationApi } from "../../../server/notifications/api.ts";
import { GateClock } from "./gate-clock.ts";
import { startTestServer, type TestServer } from "../../support/server.ts";
import { PushServiceStandIn, type TestSubscription } from "./push-service.ts";

export const PUSH_CONFIG = { subject: "mailto:ops@example.com", allow_insecure_endpoints: true } as const;

export interface TestDevice {
  id: string;
  token: string;
  subscription: TestSubscription;
}

export class PushHarness {
  private constructor(
    readonly server: TestServer,
    readonly service: PushServiceStandIn,
    readonly clock: Clock & { time: number },
    readonly api: NotificationApi,
  ) {}

  static async start(
    push: Record<string, unknown> = {},
    config: ConfigInput = {},
    clock: Clock & { time: number } = new GateClock(20_000),
  ): Promise<PushHarness> {
    const service = await PushServiceStandIn.start();
    const server = await startTestServer(
      { ...config, push: { ...PUSH_CONFIG, ...push } as ConfigInput["push"] },
      { clock },
    );
    return new PushHarness(
      server,
      service,
      clock,
      createNotificationApi(server.runtime.ctx.notifications, "test-plugin"),
    );
  }

  get push(): PushService {
    return this.server.runtime.ctx.push!;
  }

  /** A paired device whose browser subscribed (POST /push/subscriptions with its token). */
  async device(name = "phone"): Promise<TestDevice> {
    const pairing = this.server.runtime.ctx.pairing;
    const redeemed = pairing.redeem(pairing.createCode().code, name);
    if (!redeemed.ok) throw new Error(redeemed.reason);
    const subscription = await this.service.subscribe(this.push.publicKey);
    const { clientHash: _hash, ...body } = subscription;
    const res = await this.server.request({
      method: "POST",
      url: "/push/subscriptions",
      token: redeemed.device_token,
      payload: body,
    });
    if (res.status !== 201) throw new Error(`subscribe: ${res.status} ${res.text}`);
    return { id: redeemed.device_id, token: redeemed.device_token, subscription };
  }

  /** What a device's push subscription received, once every push caused so far was sent. */
  async received(device: TestDevice): Promise<any[]> {
    await this.push.settled();
    return this.service.messages(device.subscription.clientHash);
  }

  /** The tap's record of the pushes that reached a device's subscription. */
  tapped(device: TestDevice) {
    return this.service.pushes.filter((push) => push.clientHash === device.subscription.clientHash);
  }

  async newSession(): Promise<string> {
    const res = await this.server.request({ method: "POST", url: "/sessions", payload: {} });
    return res.json.session.id as string;
  }

  async close(): Promise<void> {
    await this.server.close();
    await this.service.close();
  }
}
