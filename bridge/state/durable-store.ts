// What the bridge keeps across restarts, in `$DATA_DIR/bridge/servers.json`: each server's credential hash
// (trust on first use), the hashes of its devices' tokens, so apps can rejoin before their server is back, and its live
// pairing codes' hashes, so a valid code tried before its server rejoins is told `server_unavailable`, not refused.
// Written atomically (temp file + rename); it changes only on registration, device and code changes, never per event.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { appConfigSchema } from "../../client/wire/app-config.ts";
import { codeGrantSchema, deviceGrantSchema } from "../../client/wire/frames.ts";

const fileSchema = z.object({
  servers: z.record(
    z.string(),
    z.object({
      credential_hash: z.string().regex(/^[0-9a-f]{64}$/),
      devices: z.array(deviceGrantSchema),
      codes: z.array(codeGrantSchema).default([]),
      app_config: appConfigSchema.optional(),
    }),
  ),
});
export type DurableState = z.infer<typeof fileSchema>;
export type ServerRecord = DurableState["servers"][string];

/** What changed in the registry, for a store that writes per server (the cluster's, bridge/cluster/registry-store.ts). */
export type RegistryChange =
  | { kind: "registered" | "grants" | "app_config"; serverId: string }
  | { kind: "code_taken"; serverId: string; codeHash: string };

/** Where the registry keeps its records: this file for the single node, Redis for a cluster. */
export interface RegistryStore {
  load(): DurableState;
  /** `snapshot` is every server's record now; a store that writes per server looks at `change` instead. */
  save(snapshot: () => DurableState, change: RegistryChange): void;
}

export class DurableStore implements RegistryStore {
  private readonly file: string;

  constructor(private readonly dir: string) {
    this.file = join(dir, "servers.json");
  }

  load(): DurableState {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      return { servers: {} };
    }
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new Error(`${this.file}: not a bridge state file (${parsed.error.issues[0]?.message ?? "invalid"})`);
    return parsed.data;
  }

  save(snapshot: () => DurableState): void {
    const state = snapshot();
    mkdirSync(this.dir, { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(state), { mode: 0o600 });
    renameSync(temp, this.file);
  }
}
