// The server's settings as the admin's sections read and change them (docs/app.md "Settings"): loaded once, changed by
// merge patches against the revision read. A patch someone else's change overtook reloads and says so; a refused one
// lists each problem; a locked one says how to allow it.
import { useEffect, useState } from "preact/hooks";
import { HttpError, type ServerApi, type SettingsView } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";

export const LOCKED_TEXT =
  "Changing what runs on the server (a command, its arguments, environment or folder, or plugins) needs the admin " +
  "token, or `settings.allow_commands: true` in the server's config file.";

export interface AdminSettings {
  view: SettingsView | undefined;
  problem: string | undefined;
  api(): ServerApi;
  /** Applies a merge patch; true when it was accepted. */
  apply(patch: Record<string, unknown>): Promise<boolean>;
  run(work: () => Promise<void>): void;
}

export function useAdminSettings(): AdminSettings {
  const { admin } = useStore();
  const [view, setView] = useState<SettingsView | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const api = () => {
    const client = admin.client();
    if (!client) throw new Error("no admin token is set.");
    return client.api;
  };
  const run = (work: () => Promise<void>) => {
    setProblem(undefined);
    work().catch((error: unknown) => setProblem(describeError(error)));
  };
  useEffect(() => run(async () => setView(await api().getSettings())), []);
  const apply = async (patch: Record<string, unknown>): Promise<boolean> => {
    setProblem(undefined);
    try {
      setView(await api().patchSettings(view?.revision ?? 0, patch));
      return true;
    } catch (error) {
      setProblem(refusalText(error));
      if (error instanceof HttpError && error.code === "revision_mismatch") setView(await api().getSettings());
      return false;
    }
  };
  return { view, problem, api, apply, run };
}

function refusalText(error: unknown): string {
  if (!(error instanceof HttpError)) return describeError(error);
  if (error.code === "settings_locked") return LOCKED_TEXT;
  if (error.code === "revision_mismatch") return "The settings were changed elsewhere meanwhile: they are reloaded.";
  const details = (error.body as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (error.code === "invalid_settings" && Array.isArray(details))
    return `Not saved: ${details.map((d: { path: string; message: string }) => `${d.path}: ${d.message}`).join("; ")}`;
  return describeError(error);
}

export type Record_ = Record<string, unknown>;

/** The object at `key` of the settings, or {}. */
export function section(view: SettingsView | undefined, key: string): Record<string, Record_> {
  const value = view?.settings[key];
  return typeof value === "object" && value !== null ? (value as Record<string, Record_>) : {};
}
