// JSON already serialized, carried to where it is written so it is spliced in as is instead of serialized again. A
// relayed route's body is the text Fastify serialized; the relay used to JSON.parse it into the answer only for the
// frame (or the sealed answer) to JSON.stringify it back. Only text checked to be JSON goes in (api-relay.ts parses
// it once): spliced text that is not JSON would make a frame the bridge cannot decode.
export class JsonText {
  constructor(readonly json: string) {}
}

/** `value` serialized, with its top-level `body` spliced in as is when it is JsonText. */
export function withJsonBody(value: object): string {
  if (!("body" in value) || !(value.body instanceof JsonText)) return JSON.stringify(value);
  const { body, ...rest } = value as { body: JsonText };
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)}${head.length > 2 ? "," : ""}"body":${body.json}}`;
}

/** A frame as phoenix's Socket hands it to its encoder. */
export interface Frame {
  join_ref: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

/**
 * The server link's frame encoder (phoenix's `encode` option): phoenix's JSON encoding, `[join_ref, ref, topic,
 * event, payload]`, with a JsonText payload spliced in as is. (phoenix's binary encoding is for ArrayBuffer
 * payloads, which the server never sends.)
 */
export function encodeFrame(frame: Frame, callback: (encoded: string) => void): void {
  const { join_ref, ref, topic, event, payload } = frame;
  if (!(payload instanceof JsonText)) return callback(JSON.stringify([join_ref, ref, topic, event, payload]));
  const head = JSON.stringify([join_ref, ref, topic, event]);
  callback(`${head.slice(0, -1)},${payload.json}]`);
}
