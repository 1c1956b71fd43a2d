// Where the server may post (docs/push.md invariant P2): a subscription's endpoint is https: on a host that
// `push.allowed_hosts` names, so a device token cannot turn the server into a client of anything else on the
// network. With `allow_insecure_endpoints` (tests) an http: endpoint on a loopback address is taken too. Checked when
// a subscription is stored and again before every send (the config may have narrowed since).
import type { PushConfig } from "../config/push.ts";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

export type EndpointPolicy = Pick<PushConfig, "allowed_hosts" | "allow_insecure_endpoints">;

/** Why `endpoint` may not be posted to, or undefined when it may. */
export function endpointProblem(endpoint: string, policy: EndpointPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "is not a URL";
  }
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password";
  if (url.protocol === "http:" && policy.allow_insecure_endpoints && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  if (url.protocol !== "https:") return "must be an https: URL";
  // Push services listen on 443; another port on an allowed host is not the push service.
  if (url.port !== "") return "must use the default https port";
  if (!policy.allowed_hosts.some((pattern) => hostMatches(url.hostname, pattern)))
    return `host ${url.hostname} is not a push service in push.allowed_hosts`;
  return undefined;
}

/** `*.example.com` matches any host strictly under example.com; anything else matches itself only. */
export function hostMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return host === pattern;
}
