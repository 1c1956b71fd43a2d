// The server's reading workers and the documents waiting for one (docs/documents.md "How many are read at once"):
// at most READING_WORKERS threads read, whoever sends how many documents; a document that finds them busy waits its
// turn, first come first served, as its stored file; and a person, or the server, with as many documents waiting or
// read as it may hold is refused at once (409 too_many_documents_reading), so waiting is bounded too.
import type { Worker } from "node:worker_threads";
import { conflict, unavailable } from "../errors.ts";
import { readingIn, startWorker, type Reading, type ReadingHooks, type ReadingRequest } from "./reader.ts";

/**
 * Threads reading documents at once. Reading is CPU work (pdf.js, mammoth, drawing pages for OCR), and each worker
 * costs about 30 MB reading a small file and may grow to its 256 MiB heap on a large one: two keep the readers near
 * half a gigabyte at worst, and on the two-core machines the server runs on a third would read no faster.
 */
export const READING_WORKERS = 2;

/** Documents one person may have waiting for a worker or read by one: a share brings at most 10 files at once. */
export const READINGS_PER_PERSON = 10;

/** Documents waiting or read across the server, as many as unfinished uploads (docs/uploads.md). */
export const READINGS_IN_ALL = 32;

/** A place among the documents waiting or read, taken before the reading can begin (`Readers.reserve`). */
export interface Place {
  begin(request: ReadingRequest): Reading;
  release(): void;
}

interface Waiting {
  begin(worker: Worker): void;
  refuse(error: Error): void;
}

/**
 * The workers. One that read a document to its end (or found it unreadable) reads the next one waiting, or waits for
 * the next to come (one waits at most): a fresh worker's start (the loader, then pdf.js, its code compiled cold) took
 * three times as long as reading a 200-page PDF in a warm one. A worker that crashed (a zip bomb past its heap) or whose
 * reading was stopped is ended, never reused. A server that reads no documents runs no worker.
 */
export class Readers {
  /** Every worker not yet exited, reading or idle. */
  private readonly alive = new Set<Worker>();
  private readonly idle: Worker[] = [];
  private readonly waiting: Waiting[] = [];
  /** Documents waiting or read, by person. */
  private readonly places = new Map<string, number>();
  private closed = false;
  private most = { workers: 0, waiting: 0 };

  /** Refuses (409) a person who holds READINGS_PER_PERSON places, or anyone when the server holds READINGS_IN_ALL. */
  requireRoom(owner: string): void {
    const mine = this.places.get(owner) ?? 0;
    let all = 0;
    for (const held of this.places.values()) all += held;
    if (mine < READINGS_PER_PERSON && all < READINGS_IN_ALL) return;
    const max = mine >= READINGS_PER_PERSON ? READINGS_PER_PERSON : READINGS_IN_ALL;
    const whose = mine >= READINGS_PER_PERSON ? "you have" : "the server has";
    throw conflict(
      "too_many_documents_reading",
      `${whose} ${max} documents waiting to be read or being read; add this one once one of them is read`,
      { max_documents_reading: max },
    );
  }

  /**
   * Takes a place for `owner` now, before anything is awaited: refused (409) when they or the server hold too many,
   * unless `resumed` (one a previous run left unread, read again on start: it holds its place but is never refused).
   * The place is `begin`'s reading's, or given back by `release` (idempotent) when the reading never begins.
   */
  reserve(owner: string, { resumed = false } = {}): Place {
    if (this.closed) throw shuttingDown();
    if (!resumed) this.requireRoom(owner);
    this.places.set(owner, (this.places.get(owner) ?? 0) + 1);
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      const left = (this.places.get(owner) ?? 1) - 1;
      if (left > 0) this.places.set(owner, left);
      else this.places.delete(owner);
    };
    return {
      begin: (request) => {
        if (this.closed) throw (free(), shuttingDown());
        return this.queue(request, free);
      },
      release: free,
    };
  }

  /** Reads a document for `owner` as soon as a worker is free: `reserve` and `begin` at once. */
  start(owner: string, request: ReadingRequest, options: { resumed?: boolean } = {}): Reading {
    return this.reserve(owner, options).begin(request);
  }

  /** Places `owner` holds now: documents waiting or read (for tests, as `workers`). */
  held(owner: string): number {
    return this.places.get(owner) ?? 0;
  }

  /** Workers alive now (reading or idle), and the most ever alive, and waiting, at once: the bounds seen from outside. */
  get workers(): { alive: readonly Worker[]; most: number; mostWaiting: number } {
    return { alive: [...this.alive], most: this.most.workers, mostWaiting: this.most.waiting };
  }

  /** Ends the idle workers and refuses the documents still waiting (503 shutting_down); readings are stopped apart. */
  close(): void {
    this.closed = true;
    for (const waiting of this.waiting.splice(0)) waiting.refuse(shuttingDown());
    for (const worker of this.idle.splice(0)) void worker.terminate();
  }

  /** A reading that begins once a worker is free; `free` gives its place back when it is over. */
  private queue(request: ReadingRequest, free: () => void): Reading {
    let reading: Reading | undefined;
    let waiting: Waiting | undefined;
    const count = new Promise<number>((resolve, reject) => {
      waiting = {
        begin: (worker) => {
          reading = readingIn(worker, request, (healthy) => (free(), this.handBack(worker, healthy)));
          const counted = (pages: number) =>
            this.closed ? (reading!.cancel(), reject(shuttingDown())) : resolve(pages);
          reading.count.then(counted, reject);
        },
        refuse: (error) => (free(), reject(error)),
      };
    });
    this.waiting.push(waiting!);
    this.most.waiting = Math.max(this.most.waiting, this.waiting.length);
    this.next();
    return {
      count,
      proceed: (hooks: ReadingHooks) => reading?.proceed(hooks),
      cancel: () => {
        if (reading) return reading.cancel();
        const at = this.waiting.indexOf(waiting!);
        if (at >= 0) this.waiting.splice(at, 1)[0]!.refuse(new Error("the reading was stopped before it began"));
      },
    };
  }

  /** Begins the documents waiting, as long as a worker is idle or one more may start. */
  private next(): void {
    while (this.waiting.length > 0) {
      const worker = this.idle.pop() ?? (this.alive.size < READING_WORKERS ? this.spawn() : undefined);
      if (!worker) return;
      this.waiting.shift()!.begin(worker);
    }
  }

  private spawn(): Worker {
    const worker = startWorker();
    this.alive.add(worker);
    this.most.workers = Math.max(this.most.workers, this.alive.size);
    // Its one exit listener for its life: a worker that reads many documents in turn gains none (docs/documents.md).
    worker.once("exit", () => {
      this.alive.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      this.next();
    });
    return worker;
  }

  /** A worker done with its document: it reads the next one, or waits (one at most), or is ended. */
  private handBack(worker: Worker, healthy: boolean): void {
    if (!healthy) return; // being ended: its exit frees its place among the workers
    if (this.closed || (this.waiting.length === 0 && this.idle.length > 0)) return void worker.terminate();
    worker.unref(); // a waiting worker keeps no process alive
    this.idle.push(worker);
    this.next();
  }
}

function shuttingDown() {
  return unavailable("shutting_down", "the server is shutting down; add the document again after it restarts");
}
