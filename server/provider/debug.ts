// debug_stream logging with secrets redacted: the api_key value wherever it appears, and the value of any field
// whose name looks like a credential. Responses may still contain user data; the setting says so (docs/provider.md "Provider settings").
const SECRET_FIELD = /(api[_-]?key|token|secret|password|authorization)/i;

export function redact(value: unknown, secrets: string[]): unknown {
  if (typeof value === "string") return redactString(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redact(item, secrets));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      // Token counts (prompt_tokens, ...) are not credentials.
      out[key] = SECRET_FIELD.test(key) && typeof inner === "string" ? "[redacted]" : redact(inner, secrets);
    }
    return out;
  }
  return value;
}

export function redactString(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[redacted]");
  return out;
}
