// The typed call of the search route (client/wire/routes/search.ts).
import { searchRoute, type SearchResult } from "../../wire/routes/search.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class SearchCalls extends RouteCaller {
  /** Chats whose text or title matches `q` (words in any order, prefixes), best match first. */
  async search(q: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<SearchResult[]> {
    const answer = await this.call(searchRoute, { query: { q, limit: options.limit } }, { signal: options.signal });
    return answer.results;
  }
}
