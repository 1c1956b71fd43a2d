// A chat written straight into the server for the long-chat tests: `length` messages, user and assistant in turn.
import { expect } from "vitest";
import type { AppStack } from "./app-stack.ts";

export async function postedChat(stack: AppStack, length: number, content: (index: number) => string): Promise<string> {
  const id = await stack.createSession();
  for (let index = 0; index < length; index++) {
    const payload = { role: index % 2 === 0 ? "user" : "assistant", content: content(index) };
    const response = await stack.server.request({ method: "POST", url: `/sessions/${id}/messages`, payload });
    expect(response.status).toBe(201);
  }
  return id;
}
