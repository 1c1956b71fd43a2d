// A fresh temp dir for a test's SQLite file or data dir. Its own module, without the server's: a unit test that needs
// only a folder then imports nothing of the runtime, which mutation testing pays for on every mutant's run
// (docs/testing.md "Mutation score").
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function tempDir(prefix = "chat-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
