// A turn's retrieval (docs/documents.md "Hybrid retrieval"): when the chat's agent names an embedding model and the
// chat's chunks have its vectors, the question is embedded once for the turn and retrieval is hybrid; otherwise BM25.
// An embedding model that cannot be used (down, slow, or its answer refused) never fails the turn: retrieval falls
// back to BM25, and the reply says so once (`metadata.retrieval_notice`) per chat until the model answers again.
import type { ResolvedAgent } from "../config/agents.ts";
import type { Config } from "../config/schema.ts";
import { embed, embeddingEndpoint, type EmbeddingEndpoint } from "./embedder.ts";
import { passagesFor, type VectorQuery } from "./retrieval.ts";
import type { DocumentStore, Passage } from "./store.ts";

/** A question longer than this is embedded by its start (a paste is not a question). */
const QUERY_CHARS = 8000;
/** Seconds a question's embedding may take before the turn goes on with BM25 (the provider's own timeout if less). */
const QUERY_TIMEOUT_MS = 10_000;

const NOT_EMBEDDED = "this chat's documents were not embedded by it: it failed while they were read, or came later";

export interface Retrieval {
  passages: Passage[];
  /** Said once: why this turn's retrieval is BM25 only though the agent names an embedding model. */
  notice?: string;
}

export class TurnRetrieval {
  /** Per embedding model, the chats told it failed; emptied when it answers again. */
  private readonly told = new Map<string, Set<string>>();

  constructor(
    private readonly store: DocumentStore,
    private readonly config: () => Config,
  ) {}

  async retrieve(sessionId: string, question: string, agent: ResolvedAgent, signal: AbortSignal): Promise<Retrieval> {
    const config = this.config();
    const inline = config.documents.inline_tokens;
    const endpoint = agent.embedding && embeddingEndpoint(config, agent.embedding);
    const bm25 = () => passagesFor(this.store, sessionId, question, inline);
    if (!endpoint || question.trim() === "") return { passages: bm25() };
    if (!this.store.hasChatVectors(sessionId, endpoint.key)) {
      const passages = bm25();
      // Documents read while the model failed, or before an agent named it, have no vectors of it.
      return passages.length > 0 ? this.withNotice(passages, endpoint.key, sessionId, NOT_EMBEDDED) : { passages };
    }
    const query = await this.queryVector(endpoint, question, signal);
    if ("vector" in query) return { passages: passagesFor(this.store, sessionId, question, inline, query) };
    return this.withNotice(bm25(), endpoint.key, sessionId, query.failure);
  }

  private async queryVector(
    endpoint: EmbeddingEndpoint,
    question: string,
    signal: AbortSignal,
  ): Promise<VectorQuery | { failure: string }> {
    try {
      const timed = { ...endpoint, timeoutMs: Math.min(endpoint.timeoutMs, QUERY_TIMEOUT_MS) };
      const [vector] = await embed(
        timed,
        [question.slice(0, QUERY_CHARS)],
        this.store.vectorDimensions(endpoint.key),
        signal,
      );
      this.told.delete(endpoint.key);
      return { model: endpoint.key, vector: vector! };
    } catch (error) {
      return { failure: error instanceof Error ? error.message : String(error) };
    }
  }

  /** The passages, with the notice when this chat has not been told of this model's failure yet. */
  private withNotice(passages: Passage[], model: string, sessionId: string, failure: string): Retrieval {
    const told = this.told.get(model) ?? new Set<string>();
    this.told.set(model, told);
    if (told.has(sessionId)) return { passages };
    told.add(sessionId);
    const notice = `Documents were searched by their words only: the embedding model ${model} could not be used (${failure}).`;
    return { passages, notice };
  }
}
