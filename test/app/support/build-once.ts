// vitest globalSetup: builds app/dist once before any test file runs, when it is missing or older than its
// sources (the app tests load it in Chromium; files running in parallel must not each build it).
import { ensureAppBuilt } from "../../../scripts/build-app.ts";

export default async function setup(): Promise<void> {
  await ensureAppBuilt();
}
