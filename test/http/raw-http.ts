// Raw HTTP/1.1 over node:net for tests that must send what no HTTP client library would (broken request lines,
// oversized headers, lying content-lengths) and read exactly what the server wrote back.
import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Opens a socket to `port` on loopback and resolves once it is connected. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port }, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Sends `bytes` and collects everything until the server closes the connection (or it resets). */
export async function exchange(port: number, bytes: string | Buffer): Promise<Buffer> {
  const socket = await openSocket(port);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined); // a reset after the answer is still an answer
    socket.on("close", () => resolve(Buffer.concat(chunks)));
    socket.write(bytes);
    // Half-close: the request is complete, so a server waiting for more body bytes answers or gives up now.
    socket.end();
  });
}

/** Parses the first response in `raw` (content-length, chunked or until close); undefined when there is none. */
export function parseResponse(raw: Buffer): RawResponse | undefined {
  const text = raw.toString("latin1");
  const headEnd = text.indexOf("\r\n\r\n");
  if (headEnd === -1) return undefined;
  const [statusLine, ...headerLines] = text.slice(0, headEnd).split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
  if (!Number.isInteger(status)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = raw.subarray(Buffer.byteLength(text.slice(0, headEnd + 4), "latin1"));
  const body = headers["transfer-encoding"]?.includes("chunked")
    ? dechunk(rest)
    : headers["content-length"] !== undefined
      ? rest.subarray(0, Number(headers["content-length"]))
      : rest;
  return { status, headers, body: body.toString("utf8") };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", offset);
    if (lineEnd === -1) break;
    const size = parseInt(data.subarray(offset, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
