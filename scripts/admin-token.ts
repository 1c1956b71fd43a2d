// `npm run admin-token -- --reset`: makes a new admin token, prints it once, and keeps only its hash in DATA_DIR
// (the old token stops working). A server running on that DATA_DIR is told to read the hash again (a signal to the
// pid in its local-admin.json), and the new token is checked against it before it is printed. For the owner of
// DATA_DIR; a server given ADMIN_TOKEN in its environment checks that one, so this refuses to pretend otherwise.
import { RELOAD_ADMIN_TOKEN_SIGNAL, resetAdminToken } from "../server/auth/admin-token.ts";
import type { LocalAdmin } from "../server/auth/local-admin.ts";
import { dataDirOf, localServer } from "./owner-access.ts";

const USAGE =
  "usage: npm run admin-token -- --reset   (the token itself is never stored, only its hash: make a new one)";

async function main(): Promise<void> {
  if (!process.argv.slice(2).includes("--reset")) throw new Error(USAGE);
  const dataDir = dataDirOf();
  const running = localServer(dataDir);
  if (running?.admin_token_from_environment) {
    throw new Error(
      "the running server takes its admin token from ADMIN_TOKEN in its environment: change it there and restart",
    );
  }
  const token = resetAdminToken(dataDir);
  if (running) {
    process.kill(running.pid, RELOAD_ADMIN_TOKEN_SIGNAL);
    await acceptedBy(running, token);
  }
  process.stdout.write(
    `admin token (shown once, stored hashed in ${dataDir}): ${token}\n` +
      (running
        ? `the server at ${running.url} takes it now; the old token no longer works\n`
        : "the server takes it when it starts\n"),
  );
}

/** Waits until the running server accepts `token` (it reads the hash on the signal, within milliseconds). */
async function acceptedBy(server: LocalAdmin, token: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const response = await fetch(`${server.url}/devices`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`the server at ${server.url} still refuses the new token (${response.status}); restart it`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
