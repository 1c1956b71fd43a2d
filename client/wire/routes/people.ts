// People (docs/people.md): the people of a server, their roles, the agents each may use and an optional daily request
// limit. GET /people, POST /people, PATCH /people/{id} and DELETE /people/{id} need the admin role; any device reads
// the directory (names only) and its own person (GET /people/me). GET /audit lists what gave access to someone else.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { defineRoute } from "./route.ts";

export const MAX_PERSON_NAME = 100;
/** At most this many agent ids in a person's `agents`. */
export const MAX_PERSON_AGENTS = 100;

export const personRoleSchema = z.enum(["admin", "member"]);
export type PersonRole = z.infer<typeof personRoleSchema>;

/** "*": every agent; else the ids of the agents the person may use (and so their models and tools). */
export const personAgentsSchema = lazySchema(() =>
  z.union([z.literal("*"), z.array(z.string().min(1).max(100)).max(MAX_PERSON_AGENTS)]),
);
export type PersonAgents = z.infer<typeof personAgentsSchema>;

export const personSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    role: personRoleSchema,
    agents: personAgentsSchema,
    max_requests_per_day: z.number().int().positive().optional(),
    created_at: z.string(),
    removed_at: z.string().nullable(),
  }),
);
export type Person = z.infer<typeof personSchema>;

export const directoryEntrySchema = lazySchema(() => z.object({ id: z.string(), name: z.string() }));
export type DirectoryEntry = z.infer<typeof directoryEntrySchema>;

const personName = z.string().trim().min(1).max(MAX_PERSON_NAME);
const dailyLimit = z.number().int().min(1).max(1_000_000);
const personParams = lazySchema(() => z.object({ person_id: z.string().min(1).max(100) }).strict());
const personEnvelope = lazySchema(() => z.object({ person: personSchema }));

export const listPeopleRoute = defineRoute("GET", "/people", () => ({
  answer: z.object({ people: z.array(personSchema) }),
  errors: ["admin_required"],
}));

export const peopleDirectoryRoute = defineRoute("GET", "/people/directory", () => ({
  answer: z.object({ people: z.array(directoryEntrySchema) }),
}));

export const myPersonRoute = defineRoute("GET", "/people/me", () => ({
  answer: personEnvelope,
}));

export const createPersonRoute = defineRoute("POST", "/people", () => ({
  body: z
    .object({
      name: personName,
      role: personRoleSchema.optional(),
      agents: personAgentsSchema.optional(),
      max_requests_per_day: dailyLimit.optional(),
    })
    .strict(),
  answer: personEnvelope,
  status: 201,
  errors: ["admin_required"],
}));

export const updatePersonRoute = defineRoute("PATCH", "/people/:person_id", () => ({
  params: personParams,
  body: z
    .object({
      name: personName.optional(),
      role: personRoleSchema.optional(),
      agents: personAgentsSchema.optional(),
      /** null removes the limit. */
      max_requests_per_day: dailyLimit.nullable().optional(),
    })
    .strict(),
  answer: personEnvelope,
  errors: ["admin_required", "person_not_found", "last_admin"],
}));

export const removePersonRoute = defineRoute("DELETE", "/people/:person_id", () => ({
  params: personParams,
  query: z
    .object({ chats: z.enum(["delete", "transfer"]), to: z.string().min(1).max(100).optional() })
    .strict()
    .refine((q) => (q.chats === "transfer") === (q.to !== undefined), {
      message: "to names the person who receives the chats, with chats=transfer only",
      path: ["to"],
    }),
  answer: z.void(),
  status: 204,
  errors: ["admin_required", "person_not_found", "last_admin"],
}));

export const auditEntrySchema = lazySchema(() =>
  z.object({
    at: z.string(),
    /** Who acted: "admin_token", or the acting person's id. */
    actor: z.string(),
    action: z.string(),
    /** The person whose chats or devices it concerned. */
    person_id: z.string().nullable(),
    session_id: z.string().optional(),
  }),
);
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditRoute = defineRoute("GET", "/audit", () => ({
  answer: z.object({ entries: z.array(auditEntrySchema) }),
  errors: ["admin_required"],
}));
