// POST /audio/speech and GET /speech (docs/voice.md "Read aloud"): a TTS backend's audio streamed on, espeak-ng on
// this machine when no backend is set, and the refusals.
import { describe, expect, it } from "vitest";
import { useSpeechServer } from "./support.ts";

const start = useSpeechServer();
const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

function wavDataSize(bytes: Uint8Array): { riff: string; riffSize: number; dataSize: number } {
  const view = Buffer.from(bytes);
  return { riff: view.toString("ascii", 0, 4), riffSize: view.readUInt32LE(4), dataSize: view.readUInt32LE(40) };
}

describe("POST /audio/speech through a TTS backend", () => {
  it("V7 asks <base_url>/audio/speech {model, input, voice, response_format} and streams its audio back", async () => {
    const { backend, call } = await start(() => ({ tts: { provider_id: "local", model: "kokoro", voice: "af_sky" } }));
    const response = await call("/audio/speech", json({ text: "The weather in Lisbon is sunny." }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("audio/wav");
    const audio = new Uint8Array(await response.arrayBuffer());
    expect(wavDataSize(audio).riff).toBe("RIFF");
    expect(backend.requests.at(-1)).toMatchObject({
      path: "/v1/audio/speech",
      body: { model: "kokoro", input: "The weather in Lisbon is sunny.", voice: "af_sky", response_format: "mp3" },
    });
    await call("/audio/speech", json({ text: "again", voice: "am_adam", format: "opus" }));
    expect(backend.requests.at(-1)!.body).toMatchObject({ voice: "am_adam", response_format: "opus" });
    expect(await (await call("/speech")).json()).toEqual({ stt: false, tts: true, voices: ["af_sky"], input: "any" });
  });

  it("V8 a blank, an over-long or a non-string text is 400 invalid_input naming body.text; nothing is asked", async () => {
    const { backend, call } = await start(() => ({ tts: { provider_id: "local" } }));
    for (const text of ["", "   ", "x".repeat(4097), 42, null]) {
      const response = await call("/audio/speech", json({ text }));
      expect(response.status).toBe(400);
      expect((await response.json()).error.details[0].path).toBe("body.text");
    }
    const format = await call("/audio/speech", json({ text: "hi", format: "flac" }));
    expect((await format.json()).error.details[0].path).toBe("body.format");
    expect(backend.requests).toHaveLength(0);
  });

  it("V9 a backend's error is 502 provider_error with its message; a backend that does not answer in time too", async () => {
    const { backend, call } = await start(() => ({ tts: { provider_id: "local" }, timeout_seconds: 0.3 }));
    backend.scriptSpeech({ kind: "status", status: 400, body: { detail: "voice af_nobody not found" } });
    const refused = await call("/audio/speech", json({ text: "hi" }));
    expect(refused.status).toBe(502);
    expect((await refused.json()).error.message).toBe("the speech backend answered 400: voice af_nobody not found");
    backend.scriptSpeech({ kind: "hang" });
    const hung = await call("/audio/speech", json({ text: "hi" }));
    expect(hung.status).toBe(502);
    expect((await hung.json()).error.code).toBe("provider_error");
  });
});

describe("POST /audio/speech with espeak-ng", () => {
  it("V10 speaks with espeak-ng: a whole WAV with its sizes set, its voices listed by GET /speech", async () => {
    const { call } = await start(() => ({ tts: { engine: "espeak-ng" } }));
    const status = await (await call("/speech")).json();
    expect(status).toMatchObject({ stt: false, tts: true, input: "any" });
    expect(status.voices).toContain("en-us");
    const response = await call("/audio/speech", json({ text: "Hello from the server.", voice: "en-us" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("audio/wav");
    const audio = new Uint8Array(await response.arrayBuffer());
    expect(wavDataSize(audio)).toEqual({ riff: "RIFF", riffSize: audio.length - 8, dataSize: audio.length - 44 });
    expect(audio.length).toBeGreaterThan(10_000);
  });

  it("V11 a text that looks like options is spoken, not obeyed; an unknown voice is 400; many at once all answer", async () => {
    const { call } = await start(() => ({ tts: { engine: "espeak-ng" } }));
    const options = await call("/audio/speech", json({ text: "--version -w /tmp/x.wav" }));
    expect(options.status).toBe(200);
    expect(Buffer.from(await options.arrayBuffer()).toString("ascii", 0, 4)).toBe("RIFF");
    const voice = await call("/audio/speech", json({ text: "hi", voice: "-w/etc/passwd" }));
    expect(voice.status).toBe(400);
    expect((await voice.json()).error.details[0].path).toBe("body.voice");
    const many = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call("/audio/speech", json({ text: `n ${i}` }))),
    );
    expect(many.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect((await call("/health")).status).toBe(200);
  });

  it("V12 without speech.tts: 404 speech_not_configured", async () => {
    const { call } = await start(() => ({ stt: { provider_id: "local", model: "m" } }));
    const response = await call("/audio/speech", json({ text: "hi" }));
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe("speech_not_configured");
  });
});
