// Model discovery: GET <base_url>/models (OpenAI's `data[]`, llama.cpp's and Ollama's `models[]`). Failure is
// reported, not thrown: the model setting accepts a custom id when discovery is empty or fails (docs/provider.md "Provider settings").
import type { Clock } from "../clock.ts";
import { describeBody } from "./errors.ts";
import { modelsUrl } from "./request.ts";
import type { ProviderSettings } from "./settings.ts";
import { Deadline } from "./timeouts.ts";
import { header, readBounded, send } from "./transport.ts";
import type { DiscoveredModel, ModelDiscovery } from "./types.ts";

export async function discoverModels(
  settings: ProviderSettings,
  clock: Clock,
  signal?: AbortSignal,
): Promise<ModelDiscovery> {
  const url = modelsUrl(settings.base_url);
  const controller = new AbortController();
  const deadline = new Deadline(clock, settings.timeout * 1000, () => controller.abort(new Error("timeout")));
  const headers: Record<string, string> = { accept: "application/json" };
  if (settings.api_key !== undefined) headers.authorization = `Bearer ${settings.api_key}`;
  try {
    const response = await send({
      url,
      method: "GET",
      headers,
      signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
      connectTimeoutMs: settings.timeout * 1000,
    });
    const text = await readBounded(response.body);
    const contentType = header(response.headers, "content-type") ?? "";
    if (response.status !== 200)
      return { models: [], error: `GET ${url} answered HTTP ${response.status} (${describeBody(text, contentType)})` };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { models: [], error: `GET ${url} answered ${describeBody(text, contentType)}` };
    }
    return { models: modelsOf(body) };
  } catch (error) {
    const reason = deadline.expired ? `no answer within ${settings.timeout}s` : (error as Error).message;
    return { models: [], error: `GET ${url} failed: ${reason}` };
  } finally {
    deadline.cancel();
  }
}

function modelsOf(body: unknown): DiscoveredModel[] {
  if (typeof body !== "object" || body === null) return [];
  const record = body as Record<string, unknown>;
  const list = Array.isArray(record.data)
    ? record.data
    : Array.isArray(record.models)
      ? record.models
      : Array.isArray(body)
        ? body
        : [];
  const seen = new Set<string>();
  const models: DiscoveredModel[] = [];
  for (const entry of list) {
    if (typeof entry !== "object" || entry === null) continue;
    const e = entry as Record<string, unknown>;
    const id =
      typeof e.id === "string"
        ? e.id
        : typeof e.model === "string"
          ? e.model
          : typeof e.name === "string"
            ? e.name
            : undefined;
    if (id === undefined || seen.has(id)) continue;
    seen.add(id);
    const model: DiscoveredModel = { id };
    if (typeof e.owned_by === "string") model.owned_by = e.owned_by;
    models.push(model);
  }
  return models.sort((a, b) => a.id.localeCompare(b.id));
}
