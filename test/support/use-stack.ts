// A real server and bridge for each test of a file, and whatever the test connects to them, closed after the test
// in the reverse order of their making (clients, then proxies, then the stack), whether it passed or not (the
// closing itself is useClosing's). Like useRedis (test/cluster), call it at the top of the file:
//
//   const scope = useStack();
//   it("...", async () => {
//     const stack = await scope.start();
//     const client = scope.own(connect(await stack.pair(), FAST_RECONNECT));
//   });
import { afterEach } from "vitest";
import { Stack } from "../client/support/stack.ts";
import { useClosing, type ClosingScope } from "./use-closing.ts";

export type { Closeable } from "./use-closing.ts";

export interface StackScope extends ClosingScope {
  /** Starts this test's stack (Stack.start's arguments) and closes it after the test. */
  start(...args: Parameters<typeof Stack.start>): Promise<Stack>;
  /** Closes now what the test made so far (a test that starts a second stack after the first); after it, `start` again. */
  close(): Promise<void>;
  /** The stack `start` made in this test, for helpers of the file; throws before `start`. */
  readonly stack: Stack;
}

export function useStack(): StackScope {
  const closing = useClosing();
  let current: Stack | undefined;
  afterEach(() => {
    current = undefined;
  });
  return {
    own: closing.own,
    onClose: closing.onClose,
    async close() {
      current = undefined;
      await closing.close();
    },
    async start(...args) {
      current = closing.own(await Stack.start(...args));
      return current;
    },
    get stack() {
      if (!current) throw new Error("useStack: start() the stack first");
      return current;
    },
  };
}
