// Producer tokens, admin only (docs/notifications.md "Producers"): make one (its token shown once), list, revoke.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { defineRoute, noContent } from "./route.ts";

const producerSchema = lazySchema(() =>
  z.looseObject({ producer_id: z.string(), name: z.string(), created_at: z.string() }),
);

export const createProducerRoute = defineRoute("POST", "/producers", () => ({
  body: z.object({ name: z.string().trim().min(1, "name must not be empty").max(100) }).strict(),
  answer: producerSchema.unwrap().extend({ token: z.string() }),
  status: 201,
  admin: true,
}));

export const listProducersRoute = defineRoute("GET", "/producers", () => ({
  answer: z.looseObject({ producers: z.array(producerSchema) }),
  admin: true,
}));

export const revokeProducerRoute = defineRoute("DELETE", "/producers/:producer_id", () => ({
  params: z.object({ producer_id: z.string().min(1) }).strict(),
  answer: noContent,
  status: 204,
  errors: ["producer_not_found"],
  admin: true,
}));
