// A raw WebSocket peer for protocol tests that must see or send exact frames (the phoenix client hides both).
import { WebSocket } from "ws";
import { cleanups, until } from "./helpers.ts";

export interface RawClient {
  ws: WebSocket;
  frames: unknown[];
  send(frame: unknown): void;
  sendText(text: string): void;
  /** The first received frame (after those already taken) that matches. */
  next(match: (frame: unknown) => boolean, what: string): Promise<unknown>;
  closed: Promise<{ code: number; reason: string }>;
}

export async function rawClient(baseUrl: string, query = "vsn=2.0.0", protocols?: string[]): Promise<RawClient> {
  const ws = new WebSocket(`${baseUrl}/websocket?${query}`, protocols);
  const frames: unknown[] = [];
  ws.on("message", (data) => frames.push(JSON.parse(data.toString())));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  cleanups.push(() => ws.terminate());
  return {
    ws,
    frames,
    send: (frame) => ws.send(JSON.stringify(frame)),
    sendText: (text) => ws.send(text),
    async next(match, what) {
      await until(() => frames.some(match), what);
      const index = frames.findIndex(match);
      return frames.splice(index, 1)[0];
    },
    closed,
  };
}

/** Matches a v2 frame by ref and event. */
export const byRef =
  (ref: string, event = "phx_reply") =>
  (frame: unknown) =>
    Array.isArray(frame) && frame[1] === ref && frame[3] === event;

/** The payload of a v2 frame. */
export const payloadOf = (frame: unknown): unknown => (frame as unknown[])[4];
