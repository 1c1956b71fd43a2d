// Where a speech call goes and how its failures read (docs/voice.md): a side of `speech` names a provider of the
// config (its base_url and api_key) or its own base_url; either way the call is OpenAI's audio API under that base
// URL. A backend's refusal is passed on as 502 provider_error with the backend's own message, never its body whole.
import type { Config } from "../config/schema.ts";
import { badGateway, notFound } from "../errors.ts";
import { excerpt } from "../provider/errors.ts";

export interface SpeechEndpoint {
  /** base_url without trailing slashes; the route (`/audio/speech`) is appended. */
  baseUrl: string;
  apiKey: string | undefined;
  model: string | undefined;
}

type EndpointSide =
  | { provider_id: string; model?: string | undefined }
  | { base_url: string; api_key?: string | undefined; model?: string | undefined };

/** The endpoint a side of `speech` names; a provider id the config lacks is refused as not configured. */
export function speechEndpoint(config: Config, side: EndpointSide, what: "stt" | "tts"): SpeechEndpoint {
  if ("provider_id" in side) {
    const provider = config.providers[side.provider_id];
    if (!provider) throw notConfigured(what, `speech.${what}.provider_id names no provider "${side.provider_id}"`);
    return {
      baseUrl: provider.base_url.replace(/\/+$/, ""),
      apiKey: provider.api_key,
      model: side.model ?? provider.model,
    };
  }
  return { baseUrl: side.base_url.replace(/\/+$/, ""), apiKey: side.api_key, model: side.model };
}

export function notConfigured(what: "stt" | "tts", detail?: string) {
  const base =
    what === "stt"
      ? "no speech-to-text backend is configured (speech.stt)"
      : "no text-to-speech backend is configured (speech.tts)";
  return notFound("speech_not_configured", detail ? `${base}: ${detail}` : base);
}

export function authHeaders(endpoint: SpeechEndpoint): Record<string, string> {
  return endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {};
}

/** The backend's own words from an error answer: OpenAI's `{error: {message}}`, a `detail`, or the text itself. */
export function backendMessage(status: number, body: string): string {
  let said = body;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    const candidate =
      typeof parsed.error === "string"
        ? parsed.error
        : (parsed.error?.message ?? (typeof parsed.detail === "string" ? parsed.detail : parsed.message));
    if (typeof candidate === "string" && candidate.trim() !== "") said = candidate;
  } catch {
    // not JSON: the text is the message
  }
  return `the speech backend answered ${status}: ${excerpt(said) || "(no message)"}`;
}

/** A call that never got an answer: refused connection, timeout, reset. */
export function unreachable(url: string, error: unknown) {
  const why = error instanceof Error ? (error.name === "TimeoutError" ? "timed out" : error.message) : String(error);
  return badGateway("provider_error", `the speech backend at ${url} could not be reached: ${why}`);
}

export function refused(status: number, body: string) {
  return badGateway("provider_error", backendMessage(status, body), { status });
}
