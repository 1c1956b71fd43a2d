// Frames in and out. vsn 2.0.0 speaks JSON arrays, vsn 1.0.0 JSON objects (docs/bridge.md "Topics"); every incoming
// frame is parsed with the wire schemas, so nothing unvalidated reaches a channel.
import { arrayFrameSchema, objectFrameSchema, type Frame } from "../../client/wire/frames.ts";

export type Vsn = "1.0.0" | "2.0.0";

export type DecodeResult = { ok: true; frame: Frame } | { ok: false; problem: string };

export function decodeFrame(text: string, vsn: Vsn): DecodeResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: "not JSON" };
  }
  if (vsn === "2.0.0") {
    const parsed = arrayFrameSchema.safeParse(json);
    if (!parsed.success) return { ok: false, problem: describe(parsed.error.issues) };
    const [joinRef, ref, topic, event, payload] = parsed.data;
    return { ok: true, frame: { joinRef, ref, topic, event, payload } };
  }
  const parsed = objectFrameSchema.safeParse(json);
  if (!parsed.success) return { ok: false, problem: describe(parsed.error.issues) };
  const { join_ref, ref, topic, event, payload } = parsed.data;
  return { ok: true, frame: { joinRef: join_ref ?? null, ref, topic, event, payload } };
}

export function encodeFrame(frame: Frame, vsn: Vsn): string {
  if (vsn === "2.0.0") return JSON.stringify([frame.joinRef, frame.ref, frame.topic, frame.event, frame.payload]);
  return JSON.stringify({
    join_ref: frame.joinRef,
    ref: frame.ref,
    topic: frame.topic,
    event: frame.event,
    payload: frame.payload,
  });
}

/** A reply frame: `[join_ref, ref, topic, "phx_reply", {status, response}]`. */
export function replyFrame(to: Frame, status: "ok" | "error", response: Record<string, unknown>): Frame {
  return { joinRef: to.joinRef, ref: to.ref, topic: to.topic, event: "phx_reply", payload: { status, response } };
}

function describe(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  const first = issues[0];
  return first ? `${first.path.map(String).join(".") || "frame"}: ${first.message}` : "invalid frame";
}

export function parseVsn(value: string | null): Vsn | undefined {
  if (value === null || value === "1.0.0") return "1.0.0";
  if (value === "2.0.0") return "2.0.0";
  return undefined;
}
