// Reads the environment and the config file once at start; everything after start receives plain values.
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { z } from "zod";
import { configSchema, type Config } from "./schema.ts";

const DEFAULT_BRIDGE_PORT = 4000;
/** Where the server finds a bridge on BRIDGE_PORT of this machine: BRIDGE_URL's default follows BRIDGE_PORT. */
export function defaultBridgeUrl(bridgePort: number = DEFAULT_BRIDGE_PORT): string {
  return `ws://127.0.0.1:${bridgePort}/socket`;
}
const DEFAULT_HOST = "127.0.0.1";
const DEFAULT_PORT = 8787;

export interface Environment {
  host: string;
  port: number;
  bridgePort: number;
  /** Empty string: run without a bridge. */
  bridgeUrl: string;
  /** BRIDGE_PUBLIC_URL: the bridge URL apps are given when it differs from BRIDGE_URL. */
  bridgePublicUrl: string | undefined;
  /** Where apps reach this server's HTTP routes (told to them when they pair), unless the config's public_url says. */
  serverUrl: string;
  dataDir: string;
  configPath: string | undefined;
  adminToken: string | undefined;
}

/** A config problem, already phrased as the one line the process prints before it exits. */
export class ConfigError extends Error {
  override name = "ConfigError";

  /** The problem's path and message apart, when it has one (PATCH /settings answers them as details). */
  constructor(
    message: string,
    readonly issue?: { path: string; message: string },
  ) {
    super(message);
  }
}

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const host = env.HOST || DEFAULT_HOST;
  const configPath = env.CONFIG || (existsSync("config.json") ? "config.json" : undefined);
  const port = parsePort("PORT", env.PORT, DEFAULT_PORT);
  const bridgePort = parsePort("BRIDGE_PORT", env.BRIDGE_PORT, DEFAULT_BRIDGE_PORT);
  return {
    host,
    port,
    serverUrl: serverUrlOf(host, port),
    bridgePort,
    bridgeUrl: env.BRIDGE_URL ?? defaultBridgeUrl(bridgePort),
    bridgePublicUrl: env.BRIDGE_PUBLIC_URL || undefined,
    dataDir: resolve(env.DATA_DIR || "./data"),
    configPath: configPath ? resolve(configPath) : undefined,
    adminToken: env.ADMIN_TOKEN || undefined,
  };
}

function serverUrlOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Where apps reach a server started with the default HOST and PORT. */
export const DEFAULT_SERVER_URL = serverUrlOf(DEFAULT_HOST, DEFAULT_PORT);

function parsePort(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`config error at env ${name}: "${value}" is not a port number`);
  return port;
}

export interface LoadedConfig {
  config: Config;
  /** Folder that relative paths in the config (plugins) resolve against. */
  baseDir: string;
}

export function loadConfig(configPath: string | undefined): LoadedConfig {
  if (!configPath) return { config: parseConfig({}), baseDir: process.cwd() };
  let text: string;
  try {
    text = readFileSync(configPath, "utf8");
  } catch (error) {
    throw new ConfigError(`config error: cannot read ${configPath}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config error: ${configPath} is not valid JSON: ${(error as Error).message}`);
  }
  return { config: parseConfig(json), baseDir: dirname(configPath) };
}

export function parseConfig(json: unknown): Config {
  const result = configSchema.safeParse(json);
  if (!result.success) throw new ConfigError(formatConfigIssue(result.error));
  return result.data;
}

/** Every problem of a config that does not parse, as a path ("providers.local.base_url") and a message. */
export function configIssues(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys")
      return { path: issue.keys.map((key) => (path ? `${path}.${key}` : key)).join(", "), message: "unknown key" };
    return { path: path || "(root)", message: issue.message };
  });
}

function formatConfigIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path.map(String).join(".") || "(root)";
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.join(", ");
    return `config error at ${path === "(root)" ? "" : path + "."}${keys}: unknown key`;
  }
  return `config error at ${path}: ${issue.message}`;
}
