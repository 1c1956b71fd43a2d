// Helpers of the documents suites: a document added to the library over HTTP and waited for until read, and the
// passages the model was last sent.
import { expect } from "vitest";
import type { ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { completionBodies } from "../runner/helpers.ts";
import type { TestServer } from "../support/server.ts";

/**
 * Adds a file to the library (of the admin, or of `token`'s person) and resolves with its id once it is `ready`
 * (read, and embedded when configured).
 */
export async function addDocument(
  server: TestServer,
  name: string,
  bytes: Uint8Array | string,
  { token, type = "application/octet-stream" }: { token?: string; type?: string } = {},
): Promise<string> {
  const answer = await server.request({
    method: "POST",
    url: `/documents?name=${encodeURIComponent(name)}`,
    token,
    headers: { "content-type": type },
    payload: Buffer.from(bytes),
  });
  expect(answer.status, answer.text).toBe(201);
  const id = answer.json.document.id as string;
  for (;;) {
    const { json } = await server.request({ method: "GET", url: `/documents/${id}`, token });
    if (json.document.status === "ready") return id;
    expect(json.document.status).toBe("reading");
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The system message of passages in the last chat completion the backend received ("" when none). */
export function lastPassages(backend: ScriptedBackend): string {
  const system = completionBodies(backend)
    .at(-1)!
    .messages.filter((m) => m.role === "system")
    .map((m) => String(m.content))
    .find((content) => content.startsWith("Passages from the documents"));
  return system ?? "";
}
