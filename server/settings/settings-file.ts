// DATA_DIR/settings.json (docs/settings.md "The file"): what the app changed, kept as one JSON merge patch over the
// config file, so it wins for every key it names (a null stays a removal) and the file's other keys still count.
// Written whole to a temporary file and renamed over, 0600: a crash leaves the old file or the new one, never half.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_FILE_MODE } from "../db/file-modes.ts";

export const SETTINGS_FILE = "settings.json";

export type Overlay = Record<string, unknown>;

export type OverlayRead = { overlay: Overlay } | { problem: string };

export function settingsPath(dataDir: string): string {
  return join(dataDir, SETTINGS_FILE);
}

/** The stored overlay; `{}` when there is no file; a problem (unreadable, not a JSON object) in words. */
export function readOverlay(dataDir: string): OverlayRead {
  const path = settingsPath(dataDir);
  if (!existsSync(path)) return { overlay: {} };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { problem: "not a JSON object" };
  return { overlay: json as Overlay };
}

export function writeOverlay(dataDir: string, overlay: Overlay): void {
  const path = settingsPath(dataDir);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(overlay, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, path);
}
