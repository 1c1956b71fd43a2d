// What a helper program (tesseract, espeak-ng) writes to stdout, kept in memory up to a bound: a program that writes
// more than its answer can be (a page's text, a spoken WAV) is killed rather than let fill the server's memory; its
// "close" then reports the signal, and the caller turns that into its own refusal.
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";

/** Collects the child's stdout; the returned function gives what was kept so far, in one buffer. */
export function boundedStdout(child: ChildProcessByStdio<Writable, Readable, null>, maxBytes: number): () => Buffer {
  const chunks: Buffer[] = [];
  let size = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) child.kill("SIGKILL");
    else chunks.push(chunk);
  });
  return () => Buffer.concat(chunks);
}
