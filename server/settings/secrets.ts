// Secrets in settings (docs/settings.md "Secrets"): an `api_key` anywhere, and every value of a `headers` or `env`
// object (an MCP server's bearer header, a stdio server's environment). They are write-only: a view gives each as
// "set", and "set" in a patch keeps the secret already stored at that path.
export const SECRET_PLACEHOLDER = "set";

export interface SettingsIssue {
  path: string;
  message: string;
}

type Path = readonly string[];

function isSecretPath(path: Path): boolean {
  const parent = path.at(-2);
  return path.at(-1) === "api_key" || parent === "headers" || parent === "env";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A copy of `value` with every secret replaced by "set". */
export function redactSecrets(value: unknown, path: Path = []): unknown {
  if (path.length > 0 && isSecretPath(path) && typeof value === "string") return SECRET_PLACEHOLDER;
  if (Array.isArray(value)) return value.map((item, index) => redactSecrets(item, [...path, String(index)]));
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactSecrets(item, [...path, key])]));
}

/**
 * The patch with each "set" at a secret path replaced by the secret stored there (`current`, the settings before
 * the patch). A "set" where nothing is stored is an issue: the app sent back a placeholder for a new secret.
 */
export function restoreSecrets(patch: unknown, current: unknown, issues: SettingsIssue[], path: Path = []): unknown {
  if (patch === SECRET_PLACEHOLDER && path.length > 0 && isSecretPath(path)) {
    if (typeof current === "string") return current;
    issues.push({ path: path.join("."), message: 'no secret is stored here to keep: give its value, not "set"' });
    return patch;
  }
  if (!isRecord(patch)) return patch;
  const base = isRecord(current) ? current : {};
  return Object.fromEntries(
    Object.entries(patch).map(([key, item]) => [
      key,
      restoreSecrets(item, Object.hasOwn(base, key) ? base[key] : undefined, issues, [...path, key]),
    ]),
  );
}

/** Every secret value in `value` (tests look for them in answers, logs and exports). */
export function secretValues(value: unknown, path: Path = []): string[] {
  if (path.length > 0 && isSecretPath(path) && typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap((item, index) => secretValues(item, [...path, String(index)]));
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => secretValues(item, [...path, key]));
}
