// Helpers of the daily-use suites (delete, archive, versions, titles): calls over real HTTP to a listening server,
// and readers of what the store holds, so a test can say "this text is nowhere in the database file".
import { expect } from "vitest";
import type { AnyEvent } from "../../client/wire/index.ts";
import { ADMIN_TOKEN } from "../support/server.ts";
import type { AppStack } from "./support.ts";

export const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);

export interface Answer {
  status: number;
  json: any;
}

/** One HTTP call to the stack's listening server (admin token unless `token` says otherwise). */
export async function call(
  stack: AppStack,
  method: string,
  path: string,
  body?: unknown,
  token: string = ADMIN_TOKEN,
): Promise<Answer> {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

/** The call answered `status`; with a 4xx code, the error body names it. */
export async function expectStatus(pending: Promise<Answer>, status: number, code?: string): Promise<Answer> {
  const answer = await pending;
  expect(answer.status, JSON.stringify(answer.json)).toBe(status);
  if (code !== undefined) expect(answer.json.error.code).toBe(code);
  return answer;
}

export async function newSession(stack: AppStack): Promise<string> {
  return (await expectStatus(call(stack, "POST", "/sessions", {}), 201)).json.session.id as string;
}

/** Every event GET /events gives from the start of the log, page after page. */
export async function allEvents(stack: AppStack): Promise<AnyEvent[]> {
  const events: AnyEvent[] = [];
  let since = "0";
  for (;;) {
    const page = (await expectStatus(call(stack, "GET", `/events?since_id=${since}&limit=1000`), 200)).json;
    events.push(...page.events);
    since = page.next_since_id;
    if (!page.has_more) return events;
  }
}

/** Rows of any table of the server's database holding `text` anywhere in a text column. */
export function rowsHolding(stack: AppStack, text: string): string[] {
  const db = stack.server.runtime.ctx.db;
  const tables = db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all();
  const found: string[] = [];
  for (const { name } of tables) {
    const columns = db
      .prepare<[], { name: string; type: string }>(`PRAGMA table_info(${name})`)
      .all()
      .filter((c) => c.type === "TEXT");
    for (const column of columns) {
      const hits = db
        .prepare<[string], { n: number }>(`SELECT count(*) AS n FROM ${name} WHERE instr(${column.name}, ?) > 0`)
        .get(text)!.n;
      if (hits > 0) found.push(`${name}.${column.name}`);
    }
  }
  return found;
}
