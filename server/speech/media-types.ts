// The recordings POST /audio/transcriptions takes (docs/voice.md "Dictation"): what browsers' MediaRecorder makes
// (Opus in WebM or Ogg, AAC in MP4), MP3, and WAV from the app's own 16 kHz recorder. Each maps to the file name the
// backend is given, since OpenAI-style backends (and ffmpeg behind them) decide the format by the name's extension.
export const AUDIO_FILE_NAMES = {
  "audio/webm": "audio.webm",
  "audio/ogg": "audio.ogg",
  "audio/mp4": "audio.m4a",
  "audio/mpeg": "audio.mp3",
  "audio/wav": "audio.wav",
} as const;

export type AudioMediaType = keyof typeof AUDIO_FILE_NAMES;

/** The essence of a Content-Type (`audio/webm;codecs=opus` → `audio/webm`), if it is one we take. */
export function audioMediaType(contentType: string | undefined): AudioMediaType | undefined {
  const essence = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const normal = essence === "audio/x-wav" || essence === "audio/wave" ? "audio/wav" : essence;
  return Object.hasOwn(AUDIO_FILE_NAMES, normal) ? (normal as AudioMediaType) : undefined;
}

export const SPEECH_FORMATS = {
  mp3: "audio/mpeg",
  wav: "audio/wav",
  opus: "audio/ogg",
} as const;

export type SpeechFormat = keyof typeof SPEECH_FORMATS;
