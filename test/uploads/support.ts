// A listening server with documents and speech (the scripted backend as the STT provider), two paired devices, and
// the calls of an upload in parts spelled once (docs/uploads.md "Testing").
import { afterEach } from "vitest";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { TestClock } from "../provider/helpers.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

export interface UploadServer {
  server: TestServer;
  backend: ScriptedBackend;
  clock: TestClock;
  /** Device tokens: a and a2 are the Owner's phone and laptop, b is Ana's tablet (another person). */
  tokens: { a: string; b: string; a2: string };
  /** fetch against the listening server with device a's token (or `token`). */
  call(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  /** JSON in, status and JSON out. */
  json(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
}

export function useUploadServer(): (config?: ConfigInput) => Promise<UploadServer> {
  const open: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });
  return async (config = {}) => {
    const backend = await startScriptedBackend();
    open.push(() => backend.close());
    const clock = new TestClock();
    const server = await startTestServer(
      {
        providers: { local: { provider: "reference_compatible", model: "chat-model", base_url: backend.url } },
        speech: { stt: { provider_id: "local", model: "whisper-1" } },
        ...config,
      },
      { clock },
    );
    open.push(() => server.close());
    const url = await server.runtime.app.listen({ port: 0, host: "127.0.0.1" });
    const { pairing } = server.runtime.ctx;
    const redeem = (name: string, personId?: string) => {
      const paired = pairing.redeem(pairing.createCode(personId).code, name);
      if (!paired.ok) throw new Error(`pairing ${name}: ${paired.reason}`);
      return paired.device_token;
    };
    const ana = server.runtime.ctx.people.create({ name: "Ana" });
    const tokens = { a: redeem("phone"), b: redeem("Ana's tablet", ana.id), a2: redeem("laptop") };
    const call = (path: string, { token = tokens.a, ...init }: RequestInit & { token?: string } = {}) =>
      fetch(url + path, {
        ...init,
        headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
      });
    const json = async (method: string, path: string, body?: unknown, token?: string) => {
      const response = await call(path, {
        method,
        token,
        ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
    };
    return { server, backend, clock, tokens, call, json };
  };
}

/** The JSON body of part `bytes`. */
export function part(bytes: Uint8Array): { data_base64: string } {
  return { data_base64: Buffer.from(bytes).toString("base64") };
}

/** Bytes whose every position differs from its neighbours', so a part sent twice or out of place shows. */
export function patterned(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff;
  return bytes;
}
