// Reads a document in a worker thread (docs/documents.md "Reading"), so the server keeps answering while a 500-page PDF
// is read: the count first (a document over max_pages is refused before any page is extracted), then each page as it
// comes, reported at most once a second and per 5% (each report is an event the bridge keeps for replay: more would
// push chat events out of its window), and always at the end. Deleting the document ends the worker.
import { Worker } from "node:worker_threads";
import type { ExtractMessage, Section } from "./extract-messages.ts";

/** Heap of a reading worker: a DOCX that inflates past it (a zip bomb) ends the worker, never the server. */
const WORKER_HEAP_MB = 256;

export interface ReadingHooks {
  page(section: Section): void;
  progress(done: number, total: number): void;
  done(pages: number): void;
  failed(reason: "encrypted" | "corrupt", message: string): void;
}

export interface Reading {
  /** Resolves with the count (pages or sections) once known; rejects when the file cannot be opened. */
  readonly count: Promise<number>;
  /** Goes on past the count, reporting each page to the hooks. */
  proceed(hooks: ReadingHooks): void;
  /** Stops reading (a refused count, a deleted document, a shutdown). */
  cancel(): void;
}

export class UnreadableDocument extends Error {
  constructor(
    readonly reason: "encrypted" | "corrupt",
    message: string,
  ) {
    super(message);
  }
}

/**
 * The worker's entry: registers tsx's loader in the worker (an --import of the parent does not reach workers), then
 * loads extract-worker.ts. Plain CommonJS, evaluated, so it needs no loader itself.
 */
const BOOTSTRAP = `
const { workerData } = require("node:worker_threads");
import("tsx/esm/api").then(({ register }) => { register(); return import(workerData.entry); });
`;

export function startReading(file: string, mediaType: string, now: () => number): Reading {
  const worker = new Worker(BOOTSTRAP, {
    eval: true,
    workerData: { file, mediaType, entry: new URL("./extract-worker.ts", import.meta.url).href },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  let hooks: ReadingHooks | undefined;
  let total = 0;
  let done = 0;
  let reported = { at: -Infinity, done: 0 };
  let settled = false;
  let resolveCount!: (pages: number) => void;
  let rejectCount!: (error: Error) => void;
  const count = new Promise<number>((resolve, reject) => ((resolveCount = resolve), (rejectCount = reject)));
  const fail = (reason: "encrypted" | "corrupt", message: string) => {
    if (settled) return;
    settled = true;
    rejectCount(new UnreadableDocument(reason, message));
    hooks?.failed(reason, message);
    void worker.terminate();
  };
  worker.on("message", (message: ExtractMessage) => {
    if (message.type === "count") return void ((total = message.pages), resolveCount(message.pages));
    if (message.type === "failed") return fail(message.reason, message.message);
    if (message.type === "done") {
      settled = true;
      hooks?.done(done);
      return void worker.terminate();
    }
    done++;
    hooks?.page(message.section);
    const at = now();
    if (at - reported.at >= 1000 && (done - reported.done) * 20 >= total && done < total) {
      reported = { at, done };
      hooks?.progress(done, total);
    }
  });
  worker.on("error", (error) => fail("corrupt", error.message));
  worker.on("exit", () => fail("corrupt", "the document could not be read to its end (too large once unpacked?)"));
  return {
    count,
    proceed(next) {
      hooks = next;
      worker.postMessage(true);
    },
    cancel() {
      settled = true;
      worker.postMessage(false);
      void worker.terminate();
    },
  };
}
