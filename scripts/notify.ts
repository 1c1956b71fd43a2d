// `npm run notify -- --title "Backup done" [--severity success] [--session <id>] [--key backup] [--body "..."]`:
// publishes a notification with a producer token (docs/notifications.md "Producers"), so a backup script or a
// home server reaches the phone without a plugin or the admin token. `--resolve` resolves the key's notification
// instead. Reads CHAT_RELAY_URL (default http://127.0.0.1:8787) and PRODUCER_TOKEN from the environment.
// Prints the record's id, status and revision; exits 1 with the server's error message on a refusal.
import { parseArgs } from "node:util";

const SEVERITIES = ["info", "success", "warning", "error"];

interface Options {
  title?: string | undefined;
  severity: string;
  session?: string | undefined;
  key?: string | undefined;
  body?: string | undefined;
  resolve: boolean;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      title: { type: "string" },
      severity: { type: "string", default: "info" },
      session: { type: "string" },
      key: { type: "string" },
      body: { type: "string" },
      resolve: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (!SEVERITIES.includes(values.severity!)) throw new Error(`--severity must be one of ${SEVERITIES.join(", ")}`);
  if (values.resolve && !values.key) throw new Error("--resolve needs --key");
  if (!values.resolve && !values.title)
    throw new Error('--title is required, e.g. npm run notify -- --title "Backup done"');
  return { ...values, severity: values.severity!, resolve: values.resolve ?? false };
}

/** A key from the title when none is given: the same title updates the same notification instead of piling up. */
function keyOf(o: Options): string {
  return (
    o.key ??
    `notify:${
      o
        .title!.toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, "-")
        .replace(/^-|-$/g, "")
        .slice(0, 80) || "notification"
    }`
  );
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const token = process.env.PRODUCER_TOKEN;
  if (!token) throw new Error("PRODUCER_TOKEN: set it to a producer token (the admin makes one with POST /producers)");
  const base = (process.env.CHAT_RELAY_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
  const scope = o.session ? `/sessions/${encodeURIComponent(o.session)}/notifications` : "/application/notifications";
  const path = o.resolve ? `${scope}/resolve` : scope;
  const body = o.resolve
    ? { key: o.key }
    : {
        key: keyOf(o),
        severity: o.severity,
        title: o.title,
        ...(o.body !== undefined ? { body: o.body } : {}),
        ...(o.session ? {} : { display: { presentation: "banner" } }),
      };
  const response = await fetch(base + path, {
    method: "POST",
    headers: { "authorization": `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error: { code: string; message: string } }).error.message;
    } catch {
      // not the error body: print what came
    }
    throw new Error(`POST ${path} answered ${response.status}: ${message}`);
  }
  const record = JSON.parse(text) as { id: string; key: string; status: string; revision: number };
  process.stdout.write(`${record.id} ${record.key} ${record.status} (revision ${record.revision})\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
