// The typed calls of the speech routes (client/wire/routes/speech.ts).
import type { BinaryBody } from "../../transport/http.ts";
import { ProtocolError } from "../../transport/errors.ts";
import { speechRoute, speechStatusRoute, transcriptionRoute, type SpeechStatus } from "../../wire/routes/speech.ts";
import { RouteCaller } from "../route-caller.ts";
import { uploadInParts, type UploadOptions } from "../uploads.ts";

export abstract class SpeechCalls extends RouteCaller {
  /** Which speech the server offers (STT, TTS, voices), so an app shows only the controls that work. */
  async speechStatus(): Promise<SpeechStatus> {
    return this.call(speechStatusRoute, {});
  }

  /**
   * The recording's text. `media_type` is the recorder's (`audio/webm;codecs=opus`, `audio/mp4`, `audio/wav`, …).
   * Through the relay the recording goes in parts by itself; `onProgress` tells how much has arrived.
   */
  async transcribe(audio: { bytes: Uint8Array; media_type: string }, options: UploadOptions = {}): Promise<string> {
    const { signal, onProgress } = options;
    if (this.sendsInParts(audio.bytes.length)) {
      const body = { kind: "audio" as const, content_type: audio.media_type, bytes: audio.bytes };
      const answer = await uploadInParts(this, body, options);
      if (!("text" in answer)) throw new ProtocolError("an audio upload was answered as a document");
      return answer.text;
    }
    const body: BinaryBody = { media_type: audio.media_type, bytes: audio.bytes };
    const answer = await this.call(transcriptionRoute, { body }, { signal });
    onProgress?.({ sent: audio.bytes.length, total: audio.bytes.length });
    return answer.text;
  }

  /** `text` spoken by the server's TTS: the audio's bytes and media type. */
  async speak(
    text: string,
    options: { voice?: string; format?: "mp3" | "wav" | "opus"; signal?: AbortSignal } = {},
  ): Promise<BinaryBody> {
    const { signal, ...rest } = options;
    return this.call(speechRoute, { body: { text, ...rest } }, { signal });
  }
}
