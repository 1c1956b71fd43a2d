// Reads a document in a worker thread (docs/documents.md "Reading"), so the server keeps answering while a 500-page PDF
// is read: the count first (a document over max_pages is refused before any page is extracted), then each page as it
// comes, reported at most once a second and per 5% (each report is an event the bridge keeps for replay: more would
// push chat events out of its window), and always at the end. Deleting the document ends the worker.
import { Worker } from "node:worker_threads";
import type { ExtractMessage, ExtractRequest, Section } from "./extract-messages.ts";
import type { PageImage } from "./page-image.ts";
import { progressGate } from "./progress.ts";

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

/** OCR for the PDF pages with no text (docs/documents.md "OCR"), when the server has it. */
export interface ScanReader {
  /** Pages of one document drawn for OCR at most. */
  pages: number;
  /** The words of a drawn page, "" when none could be read; never rejects. Stopped by `signal`. */
  read(page: number, image: PageImage, signal: AbortSignal): Promise<string>;
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

/** A new reading worker; its pool (reader-pool.ts) gives it its one exit listener for its life. */
export function startWorker(): Worker {
  const worker = new Worker(BOOTSTRAP, {
    eval: true,
    workerData: { entry: new URL("./extract-worker.ts", import.meta.url).href },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  worker.on("error", () => undefined); // a reading reports it through its own listener; an idle worker's is its exit
  return worker;
}

/** What a reading asks of its worker. */
export interface ReadingRequest {
  file: string;
  mediaType: string;
  now: () => number;
  scans?: ScanReader | undefined;
}

/**
 * One document's reading in `worker`, begun at once. `over` is called once when the worker is done with the document:
 * `healthy` when it read it to its end or found it unreadable (it may read the next one), not when it crashed or the
 * reading was stopped (it is being ended).
 */
export function readingIn(worker: Worker, request: ReadingRequest, over: (healthy: boolean) => void): Reading {
  const { file, mediaType, now, scans } = request;
  worker.ref();
  worker.postMessage({ file, mediaType, ...(scans ? { ocrPages: scans.pages } : {}) } satisfies ExtractRequest);
  let hooks: ReadingHooks | undefined;
  let total = 0;
  let done = 0;
  let worthReporting = (_done: number) => false;
  let settled = false;
  const stopped = new AbortController(); // kills a page's OCR under way
  let resolveCount!: (pages: number) => void;
  let rejectCount!: (error: Error) => void;
  const count = new Promise<number>((resolve, reject) => ((resolveCount = resolve), (rejectCount = reject)));
  const detach = () => {
    worker.off("message", onMessage);
    worker.off("error", onCrash);
    worker.off("exit", onExit);
    stopped.abort();
  };
  const fail = (reason: "encrypted" | "corrupt", message: string) => {
    if (settled) return;
    settled = true;
    detach();
    rejectCount(new UnreadableDocument(reason, message));
    hooks?.failed(reason, message);
  };
  function onMessage(message: ExtractMessage): void {
    if (message.type === "count")
      return void ((total = message.pages), (worthReporting = progressGate(total, now)), resolveCount(total));
    if (message.type === "scan") return void readScan(message.page, message.image);
    if (message.type === "failed") return void (fail(message.reason, message.message), over(true));
    if (message.type === "done") {
      settled = true;
      detach();
      hooks?.done(done);
      return over(true);
    }
    done++;
    hooks?.page(message.section);
    if (worthReporting(done)) hooks?.progress(done, total);
  }
  /** A page drawn for OCR: its words become the page, then the worker goes on to the next. */
  async function readScan(page: number, image: PageImage): Promise<void> {
    const text = scans ? await scans.read(page, image, stopped.signal) : "";
    if (settled) return;
    onMessage({ type: "page", section: { page, text } });
    worker.postMessage(true);
  }
  function onCrash(error: Error): void {
    fail("corrupt", error.message);
    void worker.terminate();
    over(false);
  }
  function onExit(): void {
    fail("corrupt", "the document could not be read to its end (too large once unpacked?)");
    over(false);
  }
  worker.on("message", onMessage);
  worker.on("error", onCrash);
  worker.on("exit", onExit);
  return {
    count,
    proceed(next) {
      hooks = next;
      worker.postMessage(true);
    },
    cancel() {
      // A reading that is over has handed its worker on, maybe to another document: that worker is not this one's.
      if (settled) return;
      settled = true;
      detach();
      worker.postMessage(false);
      void worker.terminate();
      over(false);
    },
  };
}
