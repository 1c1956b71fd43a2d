// Reads a long-poll POST body with a bound: past `maxBytes` the request is cut off (never buffered whole), so a
// hostile peer cannot make the bridge hold more than the bound per request.
import type { IncomingMessage } from "node:http";

export type BodyResult = { ok: true; text: string } | { ok: false; problem: string };

export function readBody(request: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > maxBytes) {
    request.resume();
    return Promise.resolve({ ok: false, problem: `body over ${maxBytes} bytes` });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      resolve(result);
    };
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        request.pause();
        return finish({ ok: false, problem: `body over ${maxBytes} bytes` });
      }
      chunks.push(chunk);
    });
    request.on("end", () => finish({ ok: true, text: Buffer.concat(chunks).toString("utf8") }));
    request.on("error", () => finish({ ok: false, problem: "the request failed while its body was read" }));
    request.on("close", () => finish({ ok: false, problem: "the request closed before its body ended" }));
  });
}
