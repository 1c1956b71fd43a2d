// createProvider: the `reference_compatible` adapter the request runner calls. One call of complete() is one
// logical completion: convert messages, build the payload, then for each (re)issued HTTP request run the
// pre-stream phase (attempt.ts) and read the reply (stream-reader.ts or one JSON body), recovering broken
// streams per stream_recovery. The stream of deltas always ends with `done` or a thrown ProviderError.
import { z } from "zod";
import { Accumulator } from "./accumulator.ts";
import { aborted, openWithRetries, type CallContext, type OpenedResponse } from "./attempt.ts";
import { discoverModels } from "./discovery.ts";
import { ProviderError, describeBody, parseJsonOr } from "./errors.ts";
import { toProviderMessages } from "./messages.ts";
import { sharedPacing, type PacingRegistry } from "./pacing.ts";
import { buildPayload, chatCompletionsUrl, mergeRequestOptions, requestHeaders } from "./request.ts";
import type { ProviderSettings } from "./settings.ts";
import { MidStreamError, readStream } from "./stream-reader.ts";
import {
  toolDefinitionSchema,
  type ModelDiscovery,
  type ProviderDelta,
  type ProviderDeps,
  type ProviderRequest,
} from "./types.ts";

export interface Provider {
  readonly settings: ProviderSettings;
  /** One completion as a stream of deltas ending in `done`; failures are thrown as ProviderError. */
  complete(request: ProviderRequest): AsyncIterable<ProviderDelta>;
  /** GET <base_url>/models; never throws for backend failures (see ModelDiscovery.error). */
  listModels(signal?: AbortSignal): Promise<ModelDiscovery>;
}

export interface CreateProviderDeps extends ProviderDeps {
  /** Defaults to the process-wide registry, so every agent on one base_url shares its pacing. */
  pacing?: PacingRegistry;
}

const toolsSchema = z.array(toolDefinitionSchema);

export function createProvider(settings: ProviderSettings, deps: CreateProviderDeps): Provider {
  const pacing = deps.pacing ?? sharedPacing;
  return {
    settings,
    complete: (request) => complete(settings, deps, pacing, request),
    listModels: (signal) => discoverModels(settings, deps.clock, signal),
  };
}

async function* complete(
  settings: ProviderSettings,
  deps: CreateProviderDeps,
  pacing: PacingRegistry,
  request: ProviderRequest,
): AsyncGenerator<ProviderDelta> {
  if (request.signal.aborted) throw aborted();
  const tools = parseTools(request.tools);
  const messages = await toProviderMessages(request.messages, {
    settings,
    readAsset: deps.readAsset,
    sessionId: request.session_id,
    log: deps.log,
  });
  const payload = buildPayload(request.model ? { ...settings, model: request.model } : settings, {
    messages,
    tools,
    stream: request.stream,
    requestOptions: mergeRequestOptions(settings, request.request_options),
  });
  const url = chatCompletionsUrl(settings);
  const call: CallContext = {
    settings,
    deps,
    pacing,
    url,
    headers: requestHeaders(settings, request.stream),
    body: JSON.stringify(payload),
    stream: request.stream,
    signal: request.signal,
    attempt: 0,
  };
  const debug =
    settings.debug_stream && deps.log
      ? { log: deps.log, secrets: settings.api_key ? [settings.api_key] : [] }
      : undefined;
  const idleMs = (settings.stream_idle_timeout_seconds ?? settings.timeout) * 1000;
  let recoveries = 0;
  for (;;) {
    const acc = new Accumulator();
    const opened = yield* openWithRetries(call);
    try {
      if (opened.text !== undefined) yield* readJson(opened, acc, url, request.stream);
      else yield* readStream(opened, acc, { clock: deps.clock, idleMs, callerSignal: request.signal, url, debug });
      if (acc.chunks === 0)
        throw new ProviderError(
          "invalid_response",
          `the stream from ${url} ended without a single chunk; check that the server supports streaming`,
        );
      yield { type: "done", message: acc.finish(settings, request.messages), finish_reason: acc.finishReason };
      return;
    } catch (error) {
      if (!(error instanceof MidStreamError)) throw error;
      const { mode, max_retries } = settings.stream_recovery;
      const eligible = mode === "aggressive" || (mode === "early_only" && !acc.contentEmitted);
      if (mode === "disabled" || !eligible || recoveries >= max_retries)
        throw exhausted(error, mode, eligible, recoveries);
      recoveries += 1;
      deps.log?.warn({ url, attempt: recoveries, mode }, "provider stream broke; re-issuing the request");
      yield { type: "recovery", attempt: recoveries, mode, content_emitted: acc.contentEmitted, reason: error.message };
    }
  }
}

/** A whole JSON body: the non-streamed reply, or a stream request the backend answered with JSON. */
async function* readJson(
  opened: OpenedResponse,
  acc: Accumulator,
  url: string,
  streamed: boolean,
): AsyncGenerator<ProviderDelta> {
  const text = opened.text ?? "";
  const body = parseJsonOr(
    text,
    () =>
      new ProviderError(
        "invalid_response",
        `the backend answered ${url} with ${describeBody(text, opened.contentType)} where JSON was expected; check base_url`,
        { status: opened.response.status },
      ),
  );
  acc.applyCompletion(body);
  if (!streamed) return;
  const out: ProviderDelta[] = [];
  acc.replay(out);
  yield* out;
}

function parseTools(tools: unknown): z.infer<typeof toolsSchema> | undefined {
  if (tools === undefined) return undefined;
  const parsed = toolsSchema.safeParse(tools);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ProviderError("invalid_request", `tools.${issue.path.join(".")}: ${issue.message}`);
}

function exhausted(error: MidStreamError, mode: string, eligible: boolean, recoveries: number): ProviderError {
  const base = error.toProviderError();
  const why =
    mode === "disabled"
      ? "stream_recovery is disabled"
      : !eligible
        ? "stream_recovery is early_only and content was already shown"
        : `stream recovery gave up after ${recoveries} attempt(s) (stream_recovery.max_retries)`;
  return new ProviderError(base.code, `${base.message}; ${why}`, { cause: error });
}
