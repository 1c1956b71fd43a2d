// A test server listening on 127.0.0.1 and a fetch helper that speaks to it over real HTTP, as an app would.
import type { AddressInfo } from "node:net";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";

export interface Answer {
  status: number;
  json: any;
  text: string;
}

export interface Api {
  url: string;
  call(method: string, path: string, body?: unknown, token?: string | null): Promise<Answer>;
}

export async function listen(server: TestServer): Promise<Api> {
  await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(server.runtime.app.server.address() as AddressInfo).port}`;
  return {
    url,
    async call(method, path, body, token = ADMIN_TOKEN) {
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      if (body !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(url + path, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, json, text };
    },
  };
}

/** The acting admin person (the admin token's), who owns the chats a test makes with the admin token. */
export function owner(server: Pick<TestServer, "runtime">): string {
  return server.runtime.ctx.personStore.actingAdmin().id;
}

/** A test server (startTestServer's arguments) listening on 127.0.0.1, and its Api. */
export async function listeningServer(
  ...args: Parameters<typeof startTestServer>
): Promise<{ server: TestServer; api: Api }> {
  const server = await startTestServer(...args);
  return { server, api: await listen(server) };
}
