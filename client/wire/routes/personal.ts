// What each person sets for themselves (docs/settings.md "Personal"): instructions added to every chat of theirs,
// the agent and model a new chat starts with, and a library of prompts the composer inserts with "/".
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { defineRoute } from "./route.ts";

export const MAX_INSTRUCTIONS = 20_000;
export const MAX_PROMPT_TITLE = 200;
export const MAX_PROMPT_TEXT = 20_000;
/** Prompts one person may keep: a library, not a store. */
export const MAX_PROMPTS = 500;

export const personalSettingsSchema = lazySchema(() =>
  z.object({
    instructions: z.string(),
    default_agent: z.string().nullable(),
    default_model: z.string().nullable(),
  }),
);
export type PersonalSettings = z.infer<typeof personalSettingsSchema>;

export const getPersonalSettingsRoute = defineRoute("GET", "/people/me/settings", () => ({
  answer: personalSettingsSchema,
}));

export const patchPersonalSettingsRoute = defineRoute("PATCH", "/people/me/settings", () => ({
  body: z
    .object({
      instructions: z.string().max(MAX_INSTRUCTIONS).optional(),
      /** null: the server's default agent. */
      default_agent: z.string().min(1).max(100).nullable().optional(),
      /** null: the agent's model. */
      default_model: z.string().min(1).max(200).nullable().optional(),
    })
    .strict(),
  answer: personalSettingsSchema,
  errors: ["agent_not_found"],
}));

export const promptSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    text: z.string(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  }),
);
export type Prompt = z.infer<typeof promptSchema>;

const promptParams = lazySchema(() => z.object({ prompt_id: z.string().min(1).max(100) }));
const title = z.string().trim().min(1).max(MAX_PROMPT_TITLE);
const text = z.string().min(1).max(MAX_PROMPT_TEXT);

export const listPromptsRoute = defineRoute("GET", "/prompts", () => ({
  answer: z.object({ prompts: z.array(promptSchema) }),
}));

export const createPromptRoute = defineRoute("POST", "/prompts", () => ({
  body: z.object({ title, text }).strict(),
  answer: z.object({ prompt: promptSchema }),
  status: 201,
  errors: ["prompt_limit_reached"],
}));

export const updatePromptRoute = defineRoute("PATCH", "/prompts/:prompt_id", () => ({
  params: promptParams,
  body: z.object({ title: title.optional(), text: text.optional() }).strict(),
  answer: z.object({ prompt: promptSchema }),
  errors: ["prompt_not_found"],
}));

export const deletePromptRoute = defineRoute("DELETE", "/prompts/:prompt_id", () => ({
  params: promptParams,
  answer: z.void(),
  status: 204,
  errors: ["prompt_not_found"],
}));
