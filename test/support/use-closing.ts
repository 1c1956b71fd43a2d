// What a test opens (a server, a bridge, a client, a backend), closed after the test in the reverse order of its
// opening, whether the test passed or not. It replaces the `let server: ... | undefined; afterEach(async () => {
// await server?.close(); server = undefined; })` block each file wrote out for itself. Call it at the top of the file:
//
//   const closing = useClosing();
//   it("...", async () => {
//     const server = closing.own(await startTestServer());
//   });
import { afterEach } from "vitest";

/** Anything a test opens and must close: a client (sync close), a server, a proxy or a stack (async close). */
export interface Closeable {
  close(): unknown;
}

export interface ClosingScope {
  /** Closes `thing` after the test, before what was owned earlier; returns it. */
  own<T extends Closeable>(thing: T): T;
  /** Runs `undo` after the test, in the same order as `own` (a captured socket's uninstall, ...). */
  onClose(undo: () => unknown): void;
  /** Closes now what the test owns so far (a test that restarts what it opened). */
  close(): Promise<void>;
}

export function useClosing(): ClosingScope {
  let owned: Closeable[] = [];
  const close = async () => {
    const closing = owned.reverse();
    owned = [];
    // One that fails to close does not leave the rest open: all are closed, then the first failure is thrown.
    const failures: unknown[] = [];
    for (const thing of closing)
      await Promise.resolve()
        .then(() => thing.close())
        .catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  };
  afterEach(close);
  return {
    close,
    own(thing) {
      owned.push(thing);
      return thing;
    },
    onClose(undo) {
      owned.push({ close: undo });
    },
  };
}
