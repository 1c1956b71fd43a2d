// A real server and bridge for each test of a file, and whatever the test connects to them, closed after the test
// in the reverse order of their making (clients, then proxies, then the stack), whether it passed or not. It replaces
// the `let stack; let client; afterEach(...)` block each suite wrote out for itself. Like useRedis (test/cluster),
// call it at the top of the file:
//
//   const scope = useStack();
//   it("...", async () => {
//     const stack = await scope.start();
//     const client = scope.own(connect(await stack.pair(), FAST_RECONNECT));
//   });
import { afterEach } from "vitest";
import { Stack } from "../client/support/stack.ts";

/** Anything a test opens and must close: a client (sync close), a proxy or a stack (async close). */
export interface Closeable {
  close(): unknown;
}

export interface StackScope {
  /** Starts this test's stack (Stack.start's arguments) and closes it after the test. */
  start(...args: Parameters<typeof Stack.start>): Promise<Stack>;
  /** Closes `thing` after the test, before what was opened earlier; returns it. */
  own<T extends Closeable>(thing: T): T;
  /** Runs `undo` after the test, in the same order as `own` (a captured socket's uninstall, ...). */
  onClose(undo: () => unknown): void;
  /** Closes now what the test made so far (a test that starts a second stack after the first); after it, `start` again. */
  close(): Promise<void>;
  /** The stack `start` made in this test, for helpers of the file; throws before `start`. */
  readonly stack: Stack;
}

export function useStack(): StackScope {
  let owned: Closeable[] = [];
  let current: Stack | undefined;
  const closeAll = async () => {
    const closing = owned.reverse();
    owned = [];
    current = undefined;
    // One that fails to close does not leave the rest open: all are closed, then the first failure is thrown.
    const failures: unknown[] = [];
    for (const thing of closing)
      await Promise.resolve()
        .then(() => thing.close())
        .catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  };
  afterEach(closeAll);
  return {
    close: closeAll,
    async start(...args) {
      const stack = await Stack.start(...args);
      owned.push(stack);
      current = stack;
      return stack;
    },
    own(thing) {
      owned.push(thing);
      return thing;
    },
    onClose(undo) {
      owned.push({ close: undo });
    },
    get stack() {
      if (!current) throw new Error("useStack: start() the stack first");
      return current;
    },
  };
}
