// The `push` config object (docs/push.md "Config"): Web Push to closed apps. Absent: the server pushes nothing and
// the /push routes answer 404 push_not_configured. Present: `subject` is required, since push services (Apple's
// first) refuse a VAPID key whose contact is missing or made up.
import { z } from "zod";
import { severitySchema } from "../../client/wire/notification.ts";

/** The browsers' push services: Chrome/Android (FCM), Firefox (Mozilla autopush), Safari/iOS (Apple), Edge (WNS). */
export const DEFAULT_PUSH_HOSTS = [
  "fcm.googleapis.com",
  "updates.push.services.mozilla.com",
  "*.push.apple.com",
  "*.notify.windows.com",
] as const;

/** A host name, or `*.` and a suffix (any host strictly under that suffix). */
const hostPatternSchema = z
  .string()
  .toLowerCase()
  .regex(/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+$/, "use a host name such as fcm.googleapis.com, or *.push.apple.com");

const subjectSchema = z
  .string()
  .refine(
    (subject) => /^mailto:[^@\s]+@[^@\s]+$/.test(subject) || /^https:\/\/[^\s/]+/.test(subject),
    "use a mailto: address or an https: URL",
  );

export const pushConfigSchema = z
  .object({
    /** The VAPID contact the push services may write to: `mailto:you@example.com` or `https://example.com`. */
    subject: subjectSchema,
    /** Push services a subscription's endpoint may name; nothing else is ever posted to. */
    allowed_hosts: z
      .array(hostPatternSchema)
      .max(100)
      .default([...DEFAULT_PUSH_HOSTS]),
    /** Tests only: also take `http:` endpoints on a loopback address (a local push service stand-in). */
    allow_insecure_endpoints: z.boolean().default(false),
    /** Notifications at this severity or above are pushed while pending (interactions always are). */
    min_severity: severitySchema.default("warning"),
    /** Push finished replies to devices without a live connection. */
    replies: z.boolean().default(true),
    /** How long an interaction waits for an answer when its record names no deadline: the push's TTL. */
    interaction_ttl_seconds: z
      .number()
      .int()
      .positive()
      .max(28 * 24 * 3600)
      .default(600),
    /** Subscriptions one device may hold (a browser profile has one per app origin). */
    max_subscriptions_per_device: z.number().int().positive().max(100).default(5),
  })
  .strict();

export type PushConfig = z.output<typeof pushConfigSchema>;
