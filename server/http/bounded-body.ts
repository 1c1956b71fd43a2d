// Bodies read against a limit that may change while the server runs (speech.max_bytes from settings): counted as
// they come, never buffered past the limit. A body declared too large is refused before it is read, but drained up to
// the limit first, so a client still sending it reads the refusal instead of a reset connection.
import type { Readable } from "node:stream";

/** The body's bytes; past `maxBytes` it stops reading and rejects with `tooLarge()`. */
export function readBodyUpTo(body: Readable, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else if (chunks.length > 0 || size - chunk.length <= maxBytes) {
        // Refused at once; the rest is read and dropped so the client reads the answer, up to twice the limit.
        chunks.length = 0;
        reject(tooLarge());
      } else if (size > 2 * maxBytes) body.destroy();
    };
    body.on("data", onData);
    body.once("end", () => {
      // The request lives until it is answered, which for a document waiting its turn to be read can be long: its
      // listeners would keep the chunks alive beside the whole body (docs/documents.md "How many are read at once").
      body.off("data", onData).off("error", reject);
      const whole = Buffer.concat(chunks);
      chunks.length = 0;
      resolve(whole);
    });
    body.once("error", reject);
  });
}

/** Reads and drops up to `maxBytes` of the body (or until it ends), then rejects with `refusal`. */
export async function drainThenRefuse(body: Readable, maxBytes: number, refusal: Error): Promise<never> {
  let size = 0;
  await new Promise<void>((resolve) => {
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) finish();
    };
    const finish = (): void => {
      body.off("data", onData).off("end", finish).off("error", finish).off("close", finish);
      resolve();
    };
    body.on("data", onData).once("end", finish).once("error", finish).once("close", finish);
  });
  throw refusal;
}
