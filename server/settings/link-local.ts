// Link-local addresses (169.254.0.0/16, fe80::/10) are where cloud machines answer metadata requests, credentials
// included: a provider URL there would let whoever edits settings read them through a model's error messages. They
// are refused unless the config file says `settings.allow_link_local: true` (docs/settings.md "Connections").
//
// Addresses are parsed by ipaddr.js (as bridge/socket/peer-address.ts does), not matched as text: an address has many
// spellings (WHATWG URL writes `[::ffff:169.254.169.254]` as `[::ffff:a9fe:a9fe]`, a resolver may answer either).
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

const LINK_LOCAL_V4 = ipaddr.parseCIDR("169.254.0.0/16");
const LINK_LOCAL_V6 = ipaddr.parseCIDR("fe80::/10");

/**
 * IPv6 prefixes whose last 32 bits are an IPv4 address that a connection to them reaches: IPv4-mapped (::ffff:0:0/96,
 * what a dual-stack socket dials as IPv4), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96, deprecated) and
 * NAT64's well-known prefix (64:ff9b::/96).
 */
const CARRYING_IPV4 = ["::ffff:0:0/96", "::ffff:0:0:0/96", "::/96", "64:ff9b::/96"].map((cidr) =>
  ipaddr.parseCIDR(cidr),
);

/** Whether `address` (an IP literal, bracketed or not, in any spelling) is link-local; false for anything else. */
export function isLinkLocalAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === "ipv4") return parsed.match(LINK_LOCAL_V4);
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(LINK_LOCAL_V6)) return true;
  return CARRYING_IPV4.some((prefix) => v6.match(prefix)) && lastIPv4Of(v6).match(LINK_LOCAL_V4);
}

/** The IPv4 address in an IPv6 address's last 32 bits. */
function lastIPv4Of(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const [high, low] = [v6.parts[6]!, v6.parts[7]!];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** Whether the URL names a link-local address literally (what a patch is checked against: no lookups). */
export function urlIsLinkLocal(url: string): boolean {
  try {
    return isLinkLocalAddress(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** Whether the URL's host is, or resolves to, a link-local address (what a test call checks before it dials). */
export async function resolvesToLinkLocal(url: string): Promise<boolean> {
  if (urlIsLinkLocal(url)) return true;
  try {
    const addresses = await lookup(new URL(url).hostname, { all: true });
    return addresses.some((entry) => isLinkLocalAddress(entry.address));
  } catch {
    return false;
  }
}
