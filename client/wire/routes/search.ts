// GET /search (docs/search.md): message text and titles of every chat the caller may read, best match first.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { defineRoute } from "./route.ts";
import { integerParam } from "./query.ts";

/** A query is words typed into a box; a longer one is a paste, refused rather than searched. */
export const MAX_SEARCH_QUERY = 1000;

export const searchResultSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    title: z.string(),
    message_index: z.number().int().nonnegative().nullable(),
    snippet: z.string(),
    highlights: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
    archived: z.boolean().optional(),
  }),
);
export type SearchResult = z.infer<typeof searchResultSchema>;

export const searchRoute = defineRoute("GET", "/search", () => ({
  query: z
    .object({
      q: z.string().max(MAX_SEARCH_QUERY, `q must be at most ${MAX_SEARCH_QUERY} characters`),
      limit: integerParam("limit", 1, 100).optional(),
    })
    .strict(),
  answer: z.object({ results: z.array(searchResultSchema) }),
}));
