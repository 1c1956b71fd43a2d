// A complete server-to-client WebSocket text frame (RFC 6455 §5.2: FIN, opcode 1, no mask) around bytes already
// encoded. The fan-out builds it once per broadcast and writes the same Buffer to every socket, so the per-socket
// work is one write: no header allocation, no second buffer, no per-socket framing.
export function textFrame(payload: string | Buffer): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload) : payload;
  const length = body.length;
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81;
  if (length < 126) frame[1] = length;
  else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  body.copy(frame, headerLength);
  return frame;
}

/** The payload of a frame made by textFrame (a transport that is not a WebSocket sends the payload alone). */
export function framePayload(frame: Buffer): Buffer {
  const length = frame[1]! & 0x7f;
  const headerLength = length < 126 ? 2 : length === 126 ? 4 : 10;
  return frame.subarray(headerLength);
}
