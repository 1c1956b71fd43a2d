// Shapes of the server answers the app reads that the client library does not model yet (agents, models,
// devices, pairing codes, attachments). Each is loose: a newer server may add fields. When the client library
// gains typed methods for these routes, these go away with the fetch gateway (gateway.ts).
import { z } from "zod";
import { sessionSchema } from "../../../client/index.ts";

export const sessionListSchema = z.looseObject({ sessions: z.array(sessionSchema) });
export const sessionBodySchema = z.looseObject({ session: sessionSchema });
export const sendAcceptedSchema = z.looseObject({ request_id: z.string().min(1) });

const selectDescriptorSchema = z.looseObject({
  type: z.string(),
  options: z.array(z.string()).default([]),
  rich_ui: z.boolean().optional(),
});
export type SelectDescriptor = z.infer<typeof selectDescriptorSchema>;

export const agentSchema = z.looseObject({
  agent_id: z.string(),
  provider_id: z.string(),
  model: z.string().nullish(),
  request_options_ui: z.record(z.string(), selectDescriptorSchema).nullish(),
  show_usage: z.boolean().default(true),
  show_estimated_cached_tokens: z.boolean().default(false),
  allow_image_attachment_base64: z.boolean().default(true),
  allow_image_attachment_url: z.boolean().default(true),
});
export type Agent = z.infer<typeof agentSchema>;
export const agentListSchema = z.looseObject({ agents: z.array(agentSchema) });

export const modelListSchema = z.looseObject({
  models: z.array(z.union([z.string(), z.looseObject({ id: z.string() })])).default([]),
  model: z.string().nullish(),
  error: z.unknown().optional(),
});

export const storedAttachmentSchema = z.looseObject({ asset_id: z.string(), media_type: z.string(), size: z.number() });

export const deviceSchema = z.looseObject({
  device_id: z.string(),
  name: z.string(),
  created_at: z.string(),
  last_seen_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  connected: z.boolean().optional(),
});
export type Device = z.infer<typeof deviceSchema>;
export const deviceListSchema = z.looseObject({ devices: z.array(deviceSchema) });

export const pairingCodeSchema = z.looseObject({
  code: z.string(),
  expires_at: z.string(),
  bridge_url: z.string(),
  server_url: z.string(),
  pair_url: z.string().optional(),
});
export type PairingCode = z.infer<typeof pairingCodeSchema>;

export const errorBodySchema = z.looseObject({ error: z.looseObject({ code: z.string(), message: z.string() }) });
