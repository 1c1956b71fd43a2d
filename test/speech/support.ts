// A listening server with `speech` set, and the scripted backend standing in for the speech providers.
import { afterEach } from "vitest";
import type { ConfigInput } from "../../server/config/schema.ts";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";

export interface SpeechServer {
  server: TestServer;
  backend: ScriptedBackend;
  /** http://127.0.0.1:<port> of the listening server. */
  url: string;
  /** fetch against the server with the admin token. */
  call(path: string, init?: RequestInit): Promise<Response>;
}

export function useSpeechServer(): (speech: (backendUrl: string) => ConfigInput["speech"]) => Promise<SpeechServer> {
  const open: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });
  return async (speech) => {
    const backend = await startScriptedBackend();
    open.push(() => backend.close());
    const server = await startTestServer({
      providers: { local: { provider: "reference_compatible", model: "chat-model", base_url: backend.url } },
      ...(speech(backend.url) ? { speech: speech(backend.url) } : {}),
    });
    open.push(() => server.close());
    const url = await server.runtime.app.listen({ port: 0, host: "127.0.0.1" });
    const call = (path: string, init: RequestInit = {}) =>
      fetch(url + path, {
        ...init,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(init.headers as Record<string, string>) },
      });
    return { server, backend, url, call };
  };
}

/** Bytes that stand in for a recording: the server forwards them as they are, so their content does not matter. */
export function recording(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31) & 0xff;
  return bytes;
}
