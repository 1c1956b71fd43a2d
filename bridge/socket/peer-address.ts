// The address a peer is counted under (rate limits, socket caps, logs). An IPv4-mapped IPv6 address is the IPv4
// address it maps; any other IPv6 address counts as its /64, because one subscriber routinely holds a whole /64 and
// could otherwise present a fresh address for every attempt and spend the pairing budgets (docs/bridge.md
// "Pairing limits"). Parsing is ipaddr.js's (the library proxy-addr and so Fastify rely on), not a hand-written one.
import ipaddr from "ipaddr.js";

export function peerAddress(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined || !ipaddr.isValid(remoteAddress)) return remoteAddress ?? "unknown";
  const parsed = ipaddr.parse(remoteAddress);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(":");
  return `${prefix}::/64`;
}
