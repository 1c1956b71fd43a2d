// How the owner's scripts (`npm run pair`, `npm run admin-token`) reach the running server: ADMIN_TOKEN (with
// SERVER_URL, or HOST and PORT) when set, else the local admin token the server wrote to DATA_DIR/local-admin.json,
// readable by the owner of DATA_DIR only (server/auth/local-admin.ts; docs/security.md "First run and the owner's tools").
import { join } from "node:path";
import { LOCAL_ADMIN_FILE, readLocalAdmin, type LocalAdmin } from "../server/auth/local-admin.ts";
import { readEnvironment } from "../server/config/load.ts";

export interface ServerAccess {
  url: string;
  token: string;
}

export function dataDirOf(env: NodeJS.ProcessEnv = process.env): string {
  return readEnvironment(env).dataDir;
}

/** The running server's local file, or undefined; a file the caller may not read is an error that says why. */
export function localServer(dataDir: string): LocalAdmin | undefined {
  try {
    return readLocalAdmin(dataDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") {
      throw new Error(
        `cannot read ${join(dataDir, LOCAL_ADMIN_FILE)}: run this as the owner of DATA_DIR, or set ADMIN_TOKEN`,
      );
    }
    throw error;
  }
}

export function serverAccess(env: NodeJS.ProcessEnv = process.env): ServerAccess {
  if (env.ADMIN_TOKEN) {
    const { serverUrl } = readEnvironment(env);
    return { url: env.SERVER_URL ?? serverUrl.replace("//0.0.0.0:", "//127.0.0.1:"), token: env.ADMIN_TOKEN };
  }
  const dataDir = dataDirOf(env);
  const local = localServer(dataDir);
  if (!local)
    throw new Error(
      `no server is running on ${dataDir} (no live ${LOCAL_ADMIN_FILE}): start it with npm start, or set ADMIN_TOKEN (and SERVER_URL)`,
    );
  return { url: local.url, token: local.token };
}
