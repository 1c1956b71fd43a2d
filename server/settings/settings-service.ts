// The settings in force (docs/settings.md): the config file with DATA_DIR/settings.json over it, changed by
// PATCH /settings without a restart. A patch is checked whole before anything changes; once accepted, the new config
// and agents are swapped in at once (a request already running keeps the agent object it started with) and the
// parts that hold running things (MCP servers) are told. The revision lets two admins not overwrite each other.
import type { FastifyBaseLogger } from "fastify";
import jsonMergePatch from "json-merge-patch";
import { isDeepStrictEqual } from "node:util";
import type { ResolvedAgent } from "../config/agents.ts";
import { ConfigError } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import type { Meta } from "../db/meta.ts";
import { conflict, forbidden, invalid } from "../errors.ts";
import { checkCandidate, configInputOf, type Candidate } from "./candidate.ts";
import { readOverlay, settingsPath, writeOverlay, type Overlay } from "./settings-file.ts";
import { redactSecrets, restoreSecrets, type SettingsIssue } from "./secrets.ts";

/** Sections read once at start: a patch naming them is refused (the config file changes them, with a restart). */
const START_ONLY = ["server", "events", "bridge", "application", "assets"] as const;
/** The config file's own: what Settings may do is never changed from Settings. */
const FILE_ONLY = "settings";
const REVISION_KEY = "settings_revision";

export interface SettingsView {
  revision: number;
  settings: Record<string, unknown>;
}

/** Who asks for a change: the admin token itself may change what runs on this machine. */
export interface SettingsCaller {
  adminToken: boolean;
  /** Named in the log line of a change (a device id, "admin token"). */
  who: string;
}

export type SettingsListener = (next: Candidate, previous: Candidate) => void | Promise<void>;

export interface SettingsParts {
  /** The config file as parsed at start. */
  fileConfig: Config;
  dataDir: string;
  meta: Meta;
  log: FastifyBaseLogger;
  /** Records a change of providers, MCP servers or plugins in the audit log (server/people/audit-log.ts). */
  audit?: (who: string) => void;
}

/** Changes the audit log keeps (who changed where chats go and what runs): the rest is only logged. */
const AUDITED = ["providers", "mcp_servers", "plugins"];

export class SettingsService {
  private live: Candidate;
  private revisionNumber: number;
  private readonly fileInput: Record<string, unknown>;
  private readonly listeners: SettingsListener[] = [];

  constructor(private readonly parts: SettingsParts) {
    this.fileInput = configInputOf(parts.fileConfig);
    this.live = this.startingSettings();
    this.revisionNumber = Number(parts.meta.get(REVISION_KEY) ?? "0");
  }

  get config(): Config {
    return this.live.config;
  }

  get agents(): Map<string, ResolvedAgent> {
    return this.live.agents;
  }

  get revision(): number {
    return this.revisionNumber;
  }

  /** Hears every accepted change, after it is in force; PATCH answers once every listener has finished. */
  onApply(listener: SettingsListener): void {
    this.listeners.push(listener);
  }

  view(): SettingsView {
    return {
      revision: this.revisionNumber,
      settings: redactSecrets(configInputOf(this.config)) as Record<string, unknown>,
    };
  }

  async patch(expectedRevision: number, patch: Record<string, unknown>, caller: SettingsCaller): Promise<SettingsView> {
    if (expectedRevision !== this.revisionNumber)
      throw conflict(
        "revision_mismatch",
        "the settings changed since you read them: review and apply again",
        this.view(),
      );
    const current = configInputOf(this.config);
    const issues = startOnlyIssues(patch);
    const restored = restoreSecrets(patch, current, issues);
    const nextInput = jsonMergePatch.apply(structuredClone(current), restored) as Record<string, unknown>;
    const checked = checkCandidate(nextInput, this.parts.fileConfig.settings.allow_link_local);
    if ("issues" in checked || issues.length > 0)
      throw invalid("invalid_settings", "the settings were not changed", [
        ...issues,
        ...("issues" in checked ? checked.issues : []),
      ]);
    const commands = commandChanges(this.config, checked.candidate.config);
    if (commands.length > 0 && !caller.adminToken && !this.parts.fileConfig.settings.allow_commands)
      throw forbidden(
        "settings_locked",
        "changing what runs on the server (a stdio MCP server's command, args, env or cwd; plugins) needs the admin " +
          "token, or settings.allow_commands: true in the config file",
        { paths: commands },
      );
    await this.apply(checked.candidate, nextInput);
    if (AUDITED.some((key) => Object.hasOwn(patch, key))) this.parts.audit?.(caller.who);
    this.parts.log.info(
      { settings_revision: this.revisionNumber, changed: changedPaths(patch), by: caller.who, runs_code: commands },
      commands.length > 0 ? "settings changed, including what runs on this machine" : "settings changed",
    );
    return this.view();
  }

  private async apply(next: Candidate, nextInput: Record<string, unknown>): Promise<void> {
    const previous = this.live;
    this.live = { config: next.config, agents: keepUnchanged(previous.agents, next.agents) };
    this.revisionNumber += 1;
    this.parts.meta.set(REVISION_KEY, String(this.revisionNumber));
    writeOverlay(this.parts.dataDir, (jsonMergePatch.generate(this.fileInput, nextInput) ?? {}) as Overlay);
    for (const listener of this.listeners) await listener(this.live, previous);
  }

  /** The config file with settings.json over it; an overlay that no longer makes a valid config is ignored. */
  private startingSettings(): Candidate {
    // The config file's own providers are its author's choice: the link-local rule is for changes made in Settings.
    const file = checkCandidate(this.fileInput, true);
    if ("issues" in file) throw new ConfigError(`config error at ${file.issues[0]!.path}: ${file.issues[0]!.message}`);
    const read = readOverlay(this.parts.dataDir);
    const path = settingsPath(this.parts.dataDir);
    if ("problem" in read) return this.ignoreOverlay(file.candidate, path, read.problem);
    const { [FILE_ONLY]: _fileOnly, ...overlay } = read.overlay;
    if (Object.keys(overlay).length === 0) return file.candidate;
    const merged = jsonMergePatch.apply(structuredClone(this.fileInput), overlay);
    const checked = checkCandidate(merged, this.parts.fileConfig.settings.allow_link_local);
    if ("issues" in checked) {
      const issue = checked.issues[0]!;
      return this.ignoreOverlay(file.candidate, path, `${issue.path}: ${issue.message}`);
    }
    return checked.candidate;
  }

  private ignoreOverlay(fileSettings: Candidate, path: string, problem: string): Candidate {
    this.parts.log.warn(
      { path, problem },
      "settings.json is ignored: the config file's settings are in force until Settings are saved again",
    );
    return fileSettings;
  }
}

function startOnlyIssues(patch: Record<string, unknown>): SettingsIssue[] {
  const issues: SettingsIssue[] = START_ONLY.filter((key) => Object.hasOwn(patch, key)).map((key) => ({
    path: key,
    message: "read once at start: change it in the config file and restart",
  }));
  if (Object.hasOwn(patch, FILE_ONLY))
    issues.push({ path: FILE_ONLY, message: "the config file's own: Settings cannot change what Settings may do" });
  return issues;
}

/** The paths of a change that make the server run other code: stdio servers' command, args, env, cwd; plugins. */
export function commandChanges(previous: Config, next: Config): string[] {
  const paths = isDeepStrictEqual(previous.plugins, next.plugins) ? [] : ["plugins"];
  for (const [name, server] of Object.entries(next.mcp_servers)) {
    if (server.transport !== "stdio") continue;
    const before = Object.hasOwn(previous.mcp_servers, name) ? previous.mcp_servers[name] : undefined;
    for (const key of ["command", "args", "env", "cwd"] as const)
      if (before?.transport !== "stdio" || !isDeepStrictEqual(before[key], server[key]))
        paths.push(`mcp_servers.${name}.${key}`);
  }
  return paths;
}

/** An agent whose resolution did not change stays the same object: its provider keeps its pacing and retry state. */
function keepUnchanged(
  previous: Map<string, ResolvedAgent>,
  next: Map<string, ResolvedAgent>,
): Map<string, ResolvedAgent> {
  const kept = new Map<string, ResolvedAgent>();
  for (const [id, agent] of next) {
    const before = previous.get(id);
    kept.set(id, before && isDeepStrictEqual(before, agent) ? before : agent);
  }
  return kept;
}

/** The keys a patch names, two levels deep ("providers.local"), for the log: never a value. */
function changedPaths(patch: Record<string, unknown>): string[] {
  return Object.entries(patch).flatMap(([key, value]) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? Object.keys(value).map((inner) => `${key}.${inner}`)
      : [key],
  );
}
