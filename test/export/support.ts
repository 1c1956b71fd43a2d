// Helpers of the export suites: raw uploads to POST /import and the comparison of two exports.
import { request } from "node:http";
import { ADMIN_TOKEN } from "../support/server.ts";

/** POSTs `chunks` to /import as they come (chunked, no Content-Length unless given), over real HTTP. */
export function upload(
  url: string,
  chunks: Iterable<string | Buffer>,
  headers: Record<string, string> = {},
  token = ADMIN_TOKEN,
): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/import`,
      {
        method: "POST",
        headers: { "authorization": `Bearer ${token}`, "content-type": "application/json", ...headers },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (part: Buffer) => parts.push(part));
        res.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    // The server may answer (413) and close before the whole body is sent: that is its answer, not a failure.
    req.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error),
    );
    void (async () => {
      for (const chunk of chunks) {
        if (req.destroyed) return;
        if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
      }
      req.end();
    })();
  });
}

/**
 * An export with what the importing server assigns anew taken out: session ids, versions, update times, export
 * times, and asset ids (renamed in order of appearance, in the whole record, so references still match).
 */
export function comparable(records: any[]): any[] {
  const ids = new Map<string, string>();
  const sessionIds = new Map<string, string>(records.map((r, i) => [r.session.id, `session-${i}`]));
  return records.map((record) => {
    const text = JSON.stringify(record).replace(
      /ast_[0-9a-f]{32}/g,
      (id) => ids.get(id) ?? (ids.set(id, `asset-${ids.size}`), ids.get(id)!),
    );
    const { exported_at: _e, ...rest } = JSON.parse(text);
    const { id, version: _v, updated_at: _u, source_session_id, ...session } = rest.session;
    return {
      ...rest,
      session: {
        ...session,
        id: sessionIds.get(id),
        ...(source_session_id ? { source_session_id: sessionIds.get(source_session_id) } : {}),
      },
    };
  });
}

/**
 * Chat number `n` in the export format (docs/export.md), one user message unless `messages` are given; `extra`'s
 * fields replace the record's own (a whole `session`, `assets`, a wrong `version`, padding).
 */
export function chatRecord<M = { role: string; content: string }>(
  n: number,
  extra: Record<string, unknown> = {},
  messages: M[] = [{ role: "user", content: `hello ${n}` }] as M[],
) {
  return {
    format: "chat-relay.chat",
    version: 1,
    source_id: `test:${n}`,
    exported_at: "2026-01-01T00:00:00.000Z",
    session: {
      id: `s${n}`,
      agent_id: "default",
      version: 3,
      created_at: "2025-01-01T00:00:00.000Z",
      updated_at: "2025-01-02T00:00:00.000Z",
      messages,
      metadata: {},
    },
    assets: [] as unknown[],
    ...extra,
  };
}
