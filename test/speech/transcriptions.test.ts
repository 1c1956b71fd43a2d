// POST /audio/transcriptions (docs/voice.md "Dictation"): the recording forwarded as OpenAI's multipart form, the
// backend's text answered; limits and refusals in the one error body.
import { describe, expect, it } from "vitest";
import { HttpApi } from "../../client/transport/http.ts";
import { ChatServerApi } from "./api.ts";
import { recording, useSpeechServer } from "./support.ts";
import { ADMIN_TOKEN } from "../support/server.ts";
import type { TranscriptionForm } from "../../scripts/scripted-backend/audio.ts";

const start = useSpeechServer();

describe("POST /audio/transcriptions", () => {
  it("V1 forwards the recording as a multipart form (file named by its type, model, response_format json) and answers its text", async () => {
    const { backend, call } = await start(() => ({ stt: { provider_id: "local", model: "whisper-1" } }));
    backend.scriptTranscripts("what is the weather in Lisbon");
    const sent = recording(3000);
    const response = await call("/audio/transcriptions", {
      method: "POST",
      headers: { "content-type": "audio/webm;codecs=opus" },
      body: sent,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: "what is the weather in Lisbon" });
    const form = backend.requests.at(-1)!.body as TranscriptionForm;
    expect(backend.requests.at(-1)!.path).toBe("/v1/audio/transcriptions");
    expect(form).toEqual({
      file: { name: "audio.webm", type: "audio/webm", size: 3000 },
      model: "whisper-1",
      response_format: "json",
    });
  });

  it("V2 takes every recorder's type, WAV under its other names too; the library's transcribe() sends the bytes", async () => {
    const { backend, url } = await start((base) => ({ stt: { base_url: base, model: "base.en" } }));
    const api = new ChatServerApi(new HttpApi({ baseUrl: url, token: ADMIN_TOKEN }));
    const names: Record<string, string> = {
      "audio/ogg": "audio.ogg",
      "audio/mp4": "audio.m4a",
      "audio/mpeg": "audio.mp3",
      "audio/wav": "audio.wav",
      "audio/x-wav": "audio.wav",
    };
    for (const [type, name] of Object.entries(names)) {
      const text = await api.transcribe({ bytes: recording(100), media_type: type });
      expect(text).toBe(`scripted transcript of 100 bytes of ${type === "audio/x-wav" ? "audio/wav" : type}`);
      expect((backend.requests.at(-1)!.body as TranscriptionForm).file?.name).toBe(name);
    }
  });

  it("V3 refuses other types with 415 unsupported_media_type, before the backend is asked", async () => {
    const { backend, call } = await start(() => ({ stt: { provider_id: "local", model: "m" } }));
    for (const type of ["audio/flac", "text/plain", "application/json", "video/webm"]) {
      const response = await call("/audio/transcriptions", {
        method: "POST",
        headers: { "content-type": type },
        body: type === "application/json" ? "{}" : "abc",
      });
      expect(response.status, type).toBe(415);
      expect((await response.json()).error.code).toBe("unsupported_media_type");
    }
    expect(backend.requests).toHaveLength(0);
  });

  it("V4 a recording over speech.max_bytes is 413 audio_too_large, read by a client still sending it; the server answers on", async () => {
    const { backend, call } = await start(() => ({ stt: { provider_id: "local", model: "m" }, max_bytes: 50_000 }));
    const response = await call("/audio/transcriptions", {
      method: "POST",
      headers: { "content-type": "audio/webm" },
      body: recording(2_000_000),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "audio_too_large", details: { max_bytes: 50_000 } } });
    // Sent without a Content-Length (chunked): counted as it comes, dropped past the limit (cut at twice it).
    const chunked = await call("/audio/transcriptions", {
      method: "POST",
      headers: { "content-type": "audio/webm" },
      body: new Blob([recording(80_000)]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).error.code).toBe("audio_too_large");
    expect(backend.requests).toHaveLength(0);
    expect((await call("/health")).status).toBe(200);
  });

  it("V5 a backend's refusal is 502 provider_error with the backend's own message; an unreachable one says so", async () => {
    const { backend, call } = await start(() => ({ stt: { provider_id: "local", model: "m" } }));
    backend.scriptTranscripts({
      kind: "status",
      status: 500,
      body: { error: { message: "model base.en is not loaded" } },
    });
    const refused = await call("/audio/transcriptions", {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: recording(10),
    });
    expect(refused.status).toBe(502);
    expect(await refused.json()).toMatchObject({
      error: { code: "provider_error", message: "the speech backend answered 500: model base.en is not loaded" },
    });
    await backend.close();
    const down = await call("/audio/transcriptions", {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: recording(10),
    });
    expect(down.status).toBe(502);
    expect((await down.json()).error.message).toMatch(/could not be reached/);
  });

  it("V6 without speech.stt: 404 speech_not_configured, and GET /speech says stt false", async () => {
    const { call } = await start(() => undefined);
    const response = await call("/audio/transcriptions", {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: recording(10),
    });
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe("speech_not_configured");
    expect(await (await call("/speech")).json()).toEqual({ stt: false, tts: false, voices: [], input: "any" });
  });
});
