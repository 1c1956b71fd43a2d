// The microphone (docs/voice.md "Dictation"): a recording as the browser's MediaRecorder makes it (Opus in WebM or
// Ogg, AAC in MP4), or 16 kHz mono WAV captured by an AudioWorklet when the server's STT takes only WAV, with a level
// reading on every animation frame for the meter and the turn detector. The microphone is opened once and recorded a
// turn at a time. Echo cancellation is on, so a reply playing on the speaker is mostly not heard back. A recording
// lasts at most `maxMs` (120 s).
import { encodeWav } from "./wav.ts";

export const MAX_RECORDING_MS = 120_000;
const WAV_RATE = 16_000;
const TYPES = ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/mp4", "audio/webm"];

export interface Recording {
  bytes: Uint8Array;
  media_type: string;
}

export interface Recorder {
  /** Ends the recording and gives its bytes. */
  stop(): Promise<Recording>;
  /** Ends it and keeps nothing. */
  cancel(): void;
}

/** The open microphone: one stream for a whole dictation or conversation, recorded a turn at a time. */
export interface Microphone {
  /** Starts a recording of what it hears from now on; it stops itself after `maxMs` (onLimit says so). */
  record(onLimit?: () => void): Recorder;
  /** Stops every recording and lets the microphone go (the browser's indicator goes off). */
  close(): void;
}

export interface MicrophoneOptions {
  wav: boolean;
  /** Level readings (RMS, 0..1) with their time, on every animation frame. */
  onLevel?: (level: number, at: number) => void;
  maxMs?: number;
}

/** Why a recording cannot start, in words a person can act on. */
export function microphoneProblem(error: unknown, secure: boolean): string {
  const name = error instanceof DOMException ? error.name : "";
  if (!secure) return "The microphone needs HTTPS: open the app over https:// (see HTTPS in the docs) to speak to it.";
  if (name === "NotAllowedError" || name === "SecurityError")
    return "The microphone is blocked for this site: allow it in the browser's site settings (the lock or tune icon beside the address), then try again.";
  if (name === "NotFoundError" || name === "OverconstrainedError") return "No microphone was found on this device.";
  return `The microphone could not start: ${error instanceof Error ? error.message : String(error)}`;
}

export async function openMicrophone(options: MicrophoneOptions): Promise<Microphone> {
  if (!navigator.mediaDevices?.getUserMedia) throw new DOMException("no mediaDevices", "SecurityError");
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
  });
  const context = new AudioContext(options.wav ? { sampleRate: WAV_RATE } : {});
  const source = context.createMediaStreamSource(stream);
  const meter = levelMeter(context, source, options.onLevel);
  const pcm = options.wav ? await pcmTap(context, source) : undefined;
  const recorders = new Set<Recorder>();
  return {
    record(onLimit) {
      const capture = pcm ? pcm.record() : mediaCapture(stream);
      const limit = setTimeout(() => onLimit?.(), options.maxMs ?? MAX_RECORDING_MS);
      const recorder: Recorder = {
        stop: () => (clearTimeout(limit), recorders.delete(recorder), capture.stop()),
        cancel: () => (clearTimeout(limit), recorders.delete(recorder), capture.cancel()),
      };
      recorders.add(recorder);
      return recorder;
    },
    close() {
      for (const recorder of [...recorders]) recorder.cancel();
      meter.stop();
      pcm?.close();
      stream.getTracks().forEach((track) => track.stop());
      void context.close().catch(() => undefined);
    },
  };
}

function mediaCapture(stream: MediaStream): Recorder {
  const mimeType = TYPES.find((type) => MediaRecorder.isTypeSupported(type));
  const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : {});
  const parts: Blob[] = [];
  recorder.ondataavailable = (event) => event.data.size > 0 && parts.push(event.data);
  recorder.start(250);
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        recorder.onstop = () => {
          const type = (recorder.mimeType || mimeType || "audio/webm").toLowerCase();
          new Blob(parts, { type })
            .arrayBuffer()
            .then((buffer) => resolve({ bytes: new Uint8Array(buffer), media_type: type }), reject);
        };
        recorder.stop();
      }),
    cancel: () => void (recorder.state !== "inactive" && recorder.stop()),
  };
}

/** Collects the microphone's samples on the audio thread (no ScriptProcessor: deprecated and janky on phones). */
const WORKLET = `registerProcessor("pcm-capture", class extends AudioWorkletProcessor {
  process(inputs) { const channel = inputs[0] && inputs[0][0]; if (channel) this.port.postMessage(channel.slice(0)); return true; }
});`;

/** The samples of the open microphone, handed to whichever WAV recording is running. */
async function pcmTap(
  context: AudioContext,
  source: MediaStreamAudioSourceNode,
): Promise<{ record(): Recorder; close(): void }> {
  const url = URL.createObjectURL(new Blob([WORKLET], { type: "text/javascript" }));
  await context.audioWorklet.addModule(url).finally(() => URL.revokeObjectURL(url));
  const node = new AudioWorkletNode(context, "pcm-capture");
  let collecting: Float32Array[] | undefined;
  node.port.onmessage = (event: MessageEvent<Float32Array>) => collecting?.push(event.data);
  source.connect(node);
  return {
    record() {
      const chunks: Float32Array[] = [];
      collecting = chunks;
      const end = () => void (collecting === chunks && (collecting = undefined));
      return {
        stop: async () => (end(), { bytes: encodeWav(chunks, context.sampleRate), media_type: "audio/wav" }),
        cancel: end,
      };
    },
    close: () => (source.disconnect(node), (node.port.onmessage = null)),
  };
}

function levelMeter(
  context: AudioContext,
  source: MediaStreamAudioSourceNode,
  onLevel: MicrophoneOptions["onLevel"],
): { stop(): void } {
  if (!onLevel) return { stop: () => undefined };
  const analyser = context.createAnalyser();
  analyser.fftSize = 1024;
  source.connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  let frame = 0;
  const read = () => {
    analyser.getFloatTimeDomainData(samples);
    let sum = 0;
    for (const sample of samples) sum += sample * sample;
    onLevel(Math.sqrt(sum / samples.length), performance.now());
    frame = requestAnimationFrame(read);
  };
  // Animation frames stop in a background tab; a timer keeps the turn detector fed there (conversation mode).
  const timer = setInterval(() => document.hidden && read(), 50);
  frame = requestAnimationFrame(read);
  return { stop: () => (cancelAnimationFrame(frame), clearInterval(timer), source.disconnect(analyser)) };
}
