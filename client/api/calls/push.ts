// The typed calls of the push routes (client/wire/routes/push.ts): this device's browser subscriptions.
import {
  changePushSettingsRoute,
  pushKeyRoute,
  pushSettingsRoute,
  subscribePushRoute,
  unsubscribePushRoute,
} from "../../wire/routes/push.ts";
import { RouteCaller } from "../route-caller.ts";

/** A browser's PushSubscription as JSON (PushSubscription.toJSON()). */
export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

export abstract class PushCalls extends RouteCaller {
  /** The server's VAPID public key, which a browser subscribes with (404 push_not_configured when push is off). */
  async pushKey(): Promise<string> {
    return (await this.call(pushKeyRoute, {})).public_key;
  }

  /** Stores this device's browser subscription. */
  async subscribePush(subscription: PushSubscriptionJson): Promise<void> {
    await this.call(subscribePushRoute, { body: subscription });
  }

  /** Removes one of this device's browser subscriptions (silently, if it is not one). */
  async unsubscribePush(endpoint: string): Promise<void> {
    await this.call(unsubscribePushRoute, { body: { endpoint } });
  }

  /** Whether this device's pushes carry the text (preview) or only say that something happened. */
  async pushPreview(): Promise<boolean> {
    return (await this.call(pushSettingsRoute, {})).preview;
  }

  async setPushPreview(preview: boolean): Promise<boolean> {
    return (await this.call(changePushSettingsRoute, { body: { preview } })).preview;
  }
}
