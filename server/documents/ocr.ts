// OCR of a PDF page with no text layer (docs/documents.md "OCR"): the reading worker draws the page to a PNG, and
// this runs Debian's tesseract on it as a child process of the main thread (a worker's children outlive the worker
// when it is ended; ours are killed with the reading). The image goes on stdin and the text comes back on stdout,
// no shell, no file. One page at a time across the server (tesseract takes a core; OMP_THREAD_LIMIT keeps it to one),
// each bounded in time on the server's clock and in the text it may answer, and killed when its document is deleted.
import { spawn } from "node:child_process";
import { boundedStdout } from "../child-output.ts";
import { deadlineAfter, type Clock } from "../clock.ts";
import { Slots } from "./document-embedding.ts";
import type { OcrConfig } from "./config.ts";
import type { PageImage } from "./page-image.ts";

/** The program run: TESSERACT_PATH, else `tesseract` on the PATH. */
export const DEFAULT_TESSERACT = process.env.TESSERACT_PATH ?? "tesseract";
/** A page's text past this is not a page's: the rest is dropped and the child killed. */
const MAX_PAGE_TEXT_BYTES = 1024 * 1024;

const availability = new Map<string, Promise<boolean>>();

/** Whether `program` runs here (`--version` answers), asked once a program. */
export function tesseractAvailable(program: string): Promise<boolean> {
  let known = availability.get(program);
  if (!known) {
    known = new Promise((resolve) => {
      const child = spawn(program, ["--version"], { stdio: "ignore", timeout: 10_000 });
      child.on("error", () => resolve(false));
      child.on("close", (code) => resolve(code === 0));
    });
    availability.set(program, known);
  }
  return known;
}

export class OcrFailed extends Error {}

/** Runs tesseract on one page's PNG at a time, for every document of the server. */
export class PageOcr {
  private readonly slots = new Slots(1);

  constructor(
    readonly program: string,
    private readonly clock: Clock,
  ) {}

  /** The page's words (tesseract's lines, trimmed); rejects with OcrFailed when stopped, timed out or failed. */
  recognize(image: PageImage, config: OcrConfig, signal: AbortSignal): Promise<string> {
    return this.slots.run(async () => {
      if (signal.aborted) throw new OcrFailed("the document's reading was stopped");
      const deadline = deadlineAfter(this.clock, config.page_timeout_ms, signal);
      try {
        return await runTesseract(this.program, image, config, deadline.signal);
      } catch (error) {
        if (signal.aborted) throw new OcrFailed("the document's reading was stopped");
        if (deadline.signal.aborted) throw new OcrFailed(`OCR took longer than ${config.page_timeout_ms} ms`);
        throw error;
      } finally {
        deadline.dispose();
      }
    });
  }
}

function runTesseract(program: string, image: PageImage, config: OcrConfig, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const args = ["-", "-", "-l", config.languages, "--dpi", String(image.dpi)];
    const child = spawn(program, args, {
      stdio: ["pipe", "pipe", "ignore"],
      env: { ...process.env, OMP_THREAD_LIMIT: "1" },
      signal,
      killSignal: "SIGKILL",
    });
    const output = boundedStdout(child, MAX_PAGE_TEXT_BYTES);
    // Stopped, it is killed and "close" follows once it is gone: the page is over only then (one child at a time).
    child.on("error", (error) => signal.aborted || reject(new OcrFailed(`tesseract could not run: ${error.message}`)));
    child.on("close", (code, killedBy) => {
      if (code === 0) resolve(tidy(output().toString("utf8")));
      else reject(new OcrFailed(`tesseract ended with ${killedBy ?? `exit code ${code}`}`));
    });
    child.stdin.on("error", () => {}); // it may end before reading the whole image; "close" says how it ended
    child.stdin.end(image.png);
  });
}

/** tesseract's text as a page's: form feeds and trailing spaces gone, runs of blank lines made one. */
export function tidy(text: string): string {
  return text
    .replaceAll("\f", "")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
