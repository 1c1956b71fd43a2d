// Runs one tool and turns what it answers into a result. `run` may answer a string, a {content, display?,
// metadata?} object, any JSON value, or an async iterable of parts whose return value (if any) is the result;
// without one, the string parts joined are. Cancellation does not wait for a tool that ignores ctx.signal.
import { toolResultSchema, type RegisteredTool, type ToolResult, type ToolRunContext } from "../plugins/tools.ts";

export async function runTool(
  tool: RegisteredTool,
  args: Record<string, unknown>,
  ctx: ToolRunContext,
  parts: unknown[],
): Promise<ToolResult> {
  const output = await untilAborted(Promise.resolve(tool.run(args, ctx)), ctx.signal);
  const value = isAsyncIterable(output) ? await drain(output, ctx) : output;
  return toResult(value, parts);
}

async function drain(iterable: AsyncIterable<unknown>, ctx: ToolRunContext): Promise<unknown> {
  const iterator = iterable[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await untilAborted(iterator.next(), ctx.signal);
      if (next.done) return next.value;
      ctx.emit(next.value);
    }
  } catch (error) {
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
    throw error;
  }
}

function toResult(value: unknown, parts: unknown[]): ToolResult {
  if (value === undefined) {
    const text = parts.every((p) => typeof p === "string") ? parts.join("") : parts.map((p) => stringify(p)).join("\n");
    return { content: text };
  }
  if (typeof value === "string") return { content: value };
  const parsed = toolResultSchema.safeParse(value);
  return parsed.success ? parsed.data : { content: stringify(value) };
}

function stringify(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/** Settles with `promise`, or rejects as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error("cancelled"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error("cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
