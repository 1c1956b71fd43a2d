// The microphone (docs/voice.md "Dictation"): a recording as the browser's MediaRecorder makes it (Opus in WebM or
// Ogg, AAC in MP4), or 16 kHz mono WAV captured by an AudioWorklet when the server's STT takes only WAV, with a level
// reading on every animation frame for the meter and the turn detector. Echo cancellation is on, so a reply playing
// on the speaker is mostly not heard back. At most `maxMs` (120 s): the recorder stops itself there.
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

export interface RecorderOptions {
  wav: boolean;
  /** Level readings (RMS, 0..1) with their time, on every animation frame. */
  onLevel?: (level: number, at: number) => void;
  /** Called when the recorder stopped itself at maxMs. */
  onLimit?: () => void;
  maxMs?: number;
}

/** Why a recording cannot start, in words a person can act on; undefined when it can. */
export function microphoneProblem(error: unknown, secure: boolean): string {
  const name = error instanceof DOMException ? error.name : "";
  if (!secure) return "The microphone needs HTTPS: open the app over https:// (see HTTPS in the docs) to speak to it.";
  if (name === "NotAllowedError" || name === "SecurityError")
    return "The microphone is blocked for this site: allow it in the browser's site settings (the lock or tune icon beside the address), then try again.";
  if (name === "NotFoundError" || name === "OverconstrainedError") return "No microphone was found on this device.";
  return `The microphone could not start: ${error instanceof Error ? error.message : String(error)}`;
}

export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  if (!navigator.mediaDevices?.getUserMedia) throw new DOMException("no mediaDevices", "SecurityError");
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
  });
  const context = new AudioContext(options.wav ? { sampleRate: WAV_RATE } : {});
  const source = context.createMediaStreamSource(stream);
  const meter = levelMeter(context, source, options.onLevel);
  const capture = options.wav ? await wavCapture(context, source) : mediaCapture(stream);
  let finished = false;
  const release = () => {
    finished = true;
    clearTimeout(limit);
    meter.stop();
    stream.getTracks().forEach((track) => track.stop());
    void context.close().catch(() => undefined);
  };
  const limit = setTimeout(() => options.onLimit?.(), options.maxMs ?? MAX_RECORDING_MS);
  return {
    async stop() {
      if (finished) throw new Error("the recording has ended");
      const recording = await capture.stop();
      release();
      return recording;
    },
    cancel() {
      if (finished) return;
      capture.cancel();
      release();
    },
  };
}

interface Capture {
  stop(): Promise<Recording>;
  cancel(): void;
}

function mediaCapture(stream: MediaStream): Capture {
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
    cancel: () => recorder.state !== "inactive" && recorder.stop(),
  };
}

/** Collects the microphone's samples on the audio thread (no ScriptProcessor: deprecated and janky on phones). */
const WORKLET = `registerProcessor("pcm-capture", class extends AudioWorkletProcessor {
  process(inputs) { const channel = inputs[0] && inputs[0][0]; if (channel) this.port.postMessage(channel.slice(0)); return true; }
});`;

async function wavCapture(context: AudioContext, source: MediaStreamAudioSourceNode): Promise<Capture> {
  const url = URL.createObjectURL(new Blob([WORKLET], { type: "text/javascript" }));
  await context.audioWorklet.addModule(url).finally(() => URL.revokeObjectURL(url));
  const node = new AudioWorkletNode(context, "pcm-capture");
  const chunks: Float32Array[] = [];
  node.port.onmessage = (event: MessageEvent<Float32Array>) => chunks.push(event.data);
  source.connect(node);
  const end = () => (source.disconnect(node), (node.port.onmessage = null));
  return {
    stop: async () => (end(), { bytes: encodeWav(chunks, context.sampleRate), media_type: "audio/wav" }),
    cancel: end,
  };
}

function levelMeter(
  context: AudioContext,
  source: MediaStreamAudioSourceNode,
  onLevel: RecorderOptions["onLevel"],
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
