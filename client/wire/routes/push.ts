// Web Push routes (docs/push.md "Routes"): the VAPID public key a browser subscribes with; and, for the calling device
// (a device token, directly or through the bridge's relay), storing or removing one of its browser subscriptions and
// reading or changing whether its pushes carry text. Without `push` in the server's config every route answers 404.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { defineRoute, noContent } from "./route.ts";

/** base64url of exactly `bytes` bytes, no padding (what a browser's PushSubscription.toJSON() gives). */
const base64urlOf = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} must be base64url`)
    .refine((value) => decodedLength(value) === bytes, `${what} must be ${bytes} bytes`);

/** The byte count of base64url text (without decoding it: the wire runs in browsers too). */
function decodedLength(value: string): number {
  const digits = value.replace(/=+$/, "").length;
  return Math.floor((digits * 3) / 4);
}

/** Whether base64url text starts with 0x04, the uncompressed form's first byte (its first two digits say so). */
function startsUncompressed(value: string): boolean {
  return /^B[A-P]/.test(value);
}

/** A browser's PushSubscription as JSON; fields a browser adds later are ignored. */
export const pushSubscriptionBody = lazySchema(() =>
  z.object({
    endpoint: z.string().min(1).max(2048),
    expirationTime: z.number().nullable().optional(),
    keys: z.object({
      // An uncompressed P-256 point: 65 bytes, the first 0x04. Whether it lies on the curve is the server's check
      // (server/push/p256-point.ts): the curve's code stays out of the browsers' bundle.
      p256dh: base64urlOf(65, "p256dh").refine(startsUncompressed, "p256dh must be an uncompressed P-256 point"),
      auth: base64urlOf(16, "auth"),
    }),
  }),
);

const previewSchema = lazySchema(() => z.object({ preview: z.boolean() }));
const errors = ["push_not_configured", "device_token_required"] as const;

export const pushKeyRoute = defineRoute("GET", "/push/key", () => ({
  answer: z.object({ public_key: z.string() }),
  errors: ["push_not_configured"],
}));

export const subscribePushRoute = defineRoute("POST", "/push/subscriptions", () => ({
  body: pushSubscriptionBody,
  answer: z.object({ endpoint: z.string() }),
  status: 201,
  errors: [...errors, "push_endpoint_not_allowed"],
}));

export const unsubscribePushRoute = defineRoute("DELETE", "/push/subscriptions", () => ({
  body: z.object({ endpoint: z.string().min(1).max(2048) }).strict(),
  answer: noContent,
  status: 204,
  errors,
}));

export const pushSettingsRoute = defineRoute("GET", "/push/settings", () => ({
  answer: previewSchema,
  errors,
}));

export const changePushSettingsRoute = defineRoute("PATCH", "/push/settings", () => ({
  body: previewSchema.unwrap().strict(),
  answer: previewSchema,
  errors,
}));
