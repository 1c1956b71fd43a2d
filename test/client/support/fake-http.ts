// A scripted fetch for the pure notification tests: routes answer from a table the test edits; every call is
// recorded. Tests that need a real peer use the real server instead (connection.test.ts and the fault suites).
import { HttpApi } from "../../../client/transport/http.ts";

export type Answer = { status: number; body?: unknown } | "unreachable";

export class FakeServer {
  readonly calls: Array<{ method: string; path: string; body: unknown }> = [];
  readonly routes = new Map<string, Answer | (() => Answer)>();

  readonly api = new HttpApi({ baseUrl: "http://fake", token: "t", fetch: (input, init) => this.fetch(input, init) });

  set(method: string, path: string, answer: Answer | (() => Answer)): void {
    this.routes.set(`${method} ${path}`, answer);
  }

  private async fetch(input: string, init?: RequestInit): Promise<Response> {
    const url = new URL(input);
    const method = init?.method ?? "GET";
    this.calls.push({ method, path: url.pathname, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    const entry = this.routes.get(`${method} ${url.pathname}`);
    const answer =
      typeof entry === "function"
        ? entry()
        : (entry ?? { status: 404, body: { error: { code: "not_found", message: "no route" } } });
    if (answer === "unreachable") throw new TypeError("fetch failed");
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status });
  }
}
