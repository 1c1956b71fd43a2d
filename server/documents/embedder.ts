// The embedding model an agent names (docs/documents.md "Hybrid retrieval"): OpenAI's `POST <base_url>/embeddings`
// `{model, input: [texts]}` → `{data: [{index, embedding: [numbers]}]}`, which llama.cpp, Ollama, vLLM and hosted APIs
// serve. The answer is read bounded and checked (one vector per text, all of one length, finite) before anything is
// kept; every failure is an EmbeddingFailure, which retrieval turns into BM25 and a notice.
import { request } from "undici";
import { z } from "zod";
import type { Config } from "../config/schema.ts";
import type { EmbeddingRef } from "./config.ts";
import { readBounded } from "../speech/transcriber.ts";
import { excerpt } from "../provider/errors.ts";
import { EmbeddingFailure, MAX_DIMENSIONS, unitVector } from "./vectors.ts";

/** Texts sent in one request (chunks of about 3,200 characters: about 100k tokens). */
export const EMBEDDING_BATCH = 32;

export interface EmbeddingEndpoint {
  /** Where the vectors of this model are kept apart from another's: `<provider_id>/<model>`. */
  key: string;
  url: string;
  model: string;
  apiKey: string | undefined;
  timeoutMs: number;
}

const answerSchema = z.looseObject({
  data: z.array(z.looseObject({ index: z.number().int().nonnegative().optional(), embedding: z.array(z.number()) })),
});

/** The endpoint an agent's `embedding` names, or undefined when its provider is gone from the config. */
export function embeddingEndpoint(config: Config, ref: EmbeddingRef): EmbeddingEndpoint | undefined {
  const provider = config.providers[ref.provider_id];
  if (!provider) return undefined;
  return {
    key: `${ref.provider_id}/${ref.model}`,
    url: `${provider.base_url.replace(/\/+$/, "")}/embeddings`,
    model: ref.model,
    apiKey: provider.api_key,
    timeoutMs: provider.timeout * 1000,
  };
}

/**
 * One unit vector per text, in the texts' order. `dimensions` (the length of the vectors already kept for this model)
 * refuses an answer of another length.
 */
export async function embed(
  endpoint: EmbeddingEndpoint,
  texts: readonly string[],
  dimensions: number | undefined,
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const timeout = AbortSignal.timeout(endpoint.timeoutMs);
  const answer = await request(endpoint.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
    },
    body: JSON.stringify({ model: endpoint.model, input: texts }),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  }).catch((error: unknown) => {
    throw new EmbeddingFailure(`${endpoint.url} could not be reached: ${reason(error)}`);
  });
  // Each number is at most about 25 characters of JSON; an answer past that for the texts asked is not vectors.
  const text = await readBounded(answer.body, 64 * 1024 + texts.length * MAX_DIMENSIONS * 25).catch(
    (error: unknown) => {
      throw new EmbeddingFailure(`${endpoint.url}: ${reason(error)}`);
    },
  );
  if (answer.statusCode < 200 || answer.statusCode > 299)
    throw new EmbeddingFailure(`the embedding provider answered ${answer.statusCode}: ${excerpt(text) || "(no body)"}`);
  return vectorsOf(text, texts.length, dimensions);
}

function vectorsOf(text: string, count: number, dimensions: number | undefined): Float32Array[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new EmbeddingFailure("the embedding provider's answer is not JSON");
  }
  const result = answerSchema.safeParse(parsed);
  if (!result.success) throw new EmbeddingFailure("the embedding provider's answer has no `data` of embeddings");
  const data = result.data.data;
  if (data.length !== count)
    throw new EmbeddingFailure(`the embedding provider answered ${data.length} vectors for ${count} texts`);
  // Vectors come in the texts' order, or say their place by `index` (each once).
  const ordered = data.every((item) => item.index !== undefined) ? [...data].sort((a, b) => a.index! - b.index!) : data;
  if (ordered.some((item, place) => item.index !== undefined && item.index !== place))
    throw new EmbeddingFailure("the embedding provider's answer numbers its vectors wrongly");
  let length = dimensions;
  return ordered.map((item) => {
    const vector = unitVector(item.embedding, length);
    length = vector.length;
    return vector;
  });
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.name === "TimeoutError" ? "timed out" : error.message;
}

/** The distinct embedding models the agents name (a document read is embedded by each), on providers that exist. */
export function agentEmbeddings(config: Config, agents: Iterable<{ embedding?: EmbeddingRef | undefined }>) {
  const endpoints = new Map<string, EmbeddingEndpoint>();
  for (const agent of agents) {
    const endpoint = agent.embedding && embeddingEndpoint(config, agent.embedding);
    if (endpoint) endpoints.set(endpoint.key, endpoint);
  }
  return [...endpoints.values()];
}
