// zod at the producer boundary (docs/runner.md "Plugins"): what a plugin, a tool or a producer's HTTP call may hand to
// the notification service (its routes' bodies, client/wire/routes/producer-notifications.ts). The store assigns id, revision, status and timestamps; the host fills source.plugin and the
// retention owner epoch, so none of those are accepted here. Top-level objects are strict: a misspelt field is
// a validation error, not a silently dropped one.
import { z } from "zod";
import { lazySchema, onFirstUse } from "./built-on-first-use.ts";
import {
  notificationKindSchema,
  presentationSchema,
  retentionPolicySchema,
  severitySchema,
  uiEffectsSchema,
} from "./notification.ts";

/** `<operation_name>:<uuid>`: the key names a stream, the operation id one execution of it. */
export const operationIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9_.-]+:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    "operation_id must be <operation_name>:<uuid>",
  );

export const RETENTION_VERSION = 1;

const retentionInputSchema = lazySchema(() =>
  z
    .looseObject({
      version: z.literal(RETENTION_VERSION, "only retention version 1 is understood").default(RETENTION_VERSION),
      policy: retentionPolicySchema,
      // Stored in UTC ("Z"), the one form every reader of the record accepts.
      expires_at: z.iso
        .datetime({ offset: true })
        .transform((value) => new Date(value).toISOString())
        .optional(),
    })
    .superRefine((retention, check) => {
      if (Object.hasOwn(retention, "owner_epoch"))
        check.addIssue({ code: "custom", path: ["owner_epoch"], message: "owner_epoch is stamped by the host" });
      if (retention.policy === "ttl" && retention.expires_at === undefined)
        check.addIssue({ code: "custom", path: ["expires_at"], message: "ttl needs expires_at" });
      if (retention.policy !== "ttl" && retention.expires_at !== undefined)
        check.addIssue({ code: "custom", path: ["expires_at"], message: "expires_at belongs to the ttl policy" });
    }),
);

const displayInputSchema = lazySchema(() => z.looseObject({ presentation: presentationSchema.optional() }));
const detailSchema = lazySchema(() => z.record(z.string(), z.json()));

const contentShape = onFirstUse(() => ({
  severity: severitySchema,
  title: z.string().min(1),
  body: z.string().optional(),
  display: displayInputSchema.optional(),
  ui_effects: uiEffectsSchema.optional(),
}));

function requestScoped(
  input: { retention?: { policy: string } | undefined; request_id?: string | undefined },
  check: z.RefinementCtx,
): void {
  if (input.retention?.policy === "until_request_complete" && input.request_id === undefined) {
    check.addIssue({ code: "custom", path: ["request_id"], message: "until_request_complete needs request_id" });
  }
}

/** An application notification's audience: "all", or at most 100 person ids. */
export const audienceSchema = lazySchema(() =>
  z.union([z.literal("all"), z.array(z.string().min(1).max(100)).min(1).max(100)]),
);

/** create and update by key: a full publication of the key's current state. */
export const producerInputSchema = lazySchema(() =>
  z
    .object({
      key: z.string().min(1),
      kind: notificationKindSchema.optional(),
      ...contentShape(),
      retention: retentionInputSchema.optional(),
      operation_id: operationIdSchema.optional(),
      request_id: z.string().min(1).optional(),
      /** Who an application notification is for (docs/people.md "Notifications"): everyone (absent), or these people. */
      audience: audienceSchema.optional(),
    })
    .strict()
    .superRefine(requestScoped),
);
export type ProducerInput = z.input<typeof producerInputSchema>;
export type ParsedProducerInput = z.output<typeof producerInputSchema>;

/** update by id: a patch of the content of one active occurrence. */
export const patchInputSchema = lazySchema(() =>
  z
    .object({ ...contentShape(), operation_id: operationIdSchema.optional() })
    .partial()
    .strict(),
);
export type PatchInput = z.input<typeof patchInputSchema>;
export type ParsedPatchInput = z.output<typeof patchInputSchema>;

/**
 * resolve, expire and the interaction moves, by key. Content is optional; when the key has no active
 * occurrence and the content is complete (severity and title), a new occurrence is created in the target
 * state (docs/notifications.md "Producer API").
 */
export const moveInputSchema = lazySchema(() =>
  z
    .object({
      key: z.string().min(1),
      kind: notificationKindSchema.optional(),
      ...contentShape(),
      severity: severitySchema.optional(),
      title: z.string().min(1).optional(),
      retention: retentionInputSchema.optional(),
      operation_id: operationIdSchema.optional(),
      request_id: z.string().min(1).optional(),
      /** Stored as resolution, expiration, response or cancellation detail according to the move. */
      detail: detailSchema.optional(),
    })
    .strict()
    .superRefine(requestScoped),
);
export type MoveInput = z.input<typeof moveInputSchema>;
export type ParsedMoveInput = z.output<typeof moveInputSchema>;
