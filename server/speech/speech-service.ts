// What the server can do with speech, read from the config in force at each call (so a settings change applies to
// the next call): which sides are configured, the voices, and the two calls (docs/voice.md).
import type { Config } from "../config/schema.ts";
import { invalid } from "../errors.ts";
import { notConfigured, speechEndpoint } from "./backend.ts";
import { espeakAvailable, espeakVoices, espeakWav } from "./espeak.ts";
import type { AudioMediaType } from "./media-types.ts";
import { speakThroughBackend, type SpeakRequest, type SpokenAudio } from "./synthesizer.ts";
import { transcribe } from "./transcriber.ts";

export interface SpeechStatus {
  stt: boolean;
  tts: boolean;
  voices: string[];
  input: "any" | "wav";
}

/** What GET /speech answers without any `speech` config. */
const NOTHING: SpeechStatus = { stt: false, tts: false, voices: [], input: "any" };

export class SpeechService {
  constructor(private readonly config: () => Config) {}

  status(): SpeechStatus {
    const speech = this.config().speech;
    if (!speech) return NOTHING;
    const tts = speech.tts;
    const espeak = tts !== undefined && "engine" in tts;
    return {
      stt: speech.stt !== undefined,
      tts: tts !== undefined && (!espeak || espeakAvailable()),
      voices: espeak ? espeakVoices() : tts?.voice ? [tts.voice] : [],
      input: speech.input,
    };
  }

  /** The largest recording POST /audio/transcriptions takes (the default applies without `speech`). */
  maxBytes(): number | undefined {
    return this.config().speech?.max_bytes;
  }

  async transcribe(audio: Uint8Array, mediaType: AudioMediaType): Promise<string> {
    const config = this.config();
    const stt = config.speech?.stt;
    if (!stt) throw notConfigured("stt");
    return transcribe(speechEndpoint(config, stt, "stt"), audio, mediaType, config.speech!.timeout_seconds * 1000);
  }

  async speak(input: SpeakRequest): Promise<SpokenAudio> {
    const config = this.config();
    const tts = config.speech?.tts;
    if (!tts) throw notConfigured("tts");
    const timeoutMs = config.speech!.timeout_seconds * 1000;
    const voice = input.voice ?? tts.voice;
    if ("engine" in tts) {
      if (!espeakAvailable()) throw notConfigured("tts", "espeak-ng is not installed on the server");
      if (voice !== undefined && !espeakVoices().includes(voice)) throw unknownVoice(voice);
      return { mediaType: "audio/wav", body: await espeakWav(input.text, voice, timeoutMs) };
    }
    return speakThroughBackend(speechEndpoint(config, tts, "tts"), { ...input, voice }, timeoutMs);
  }
}

function unknownVoice(voice: string) {
  return invalid("invalid_input", `body.voice: espeak-ng has no voice "${voice}" (GET /speech lists them)`, [
    { path: "body.voice", message: `espeak-ng has no voice "${voice}"` },
  ]);
}
