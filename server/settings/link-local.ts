// Link-local addresses (169.254.0.0/16, fe80::/10) are where cloud machines answer metadata requests, credentials
// included: a provider URL there would let whoever edits settings read them through a model's error messages. They
// are refused unless the config file says `settings.allow_link_local: true` (docs/settings.md "Connections").
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

export function isLinkLocalAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  if (isIP(bare) === 4) return bare.startsWith("169.254.");
  if (isIP(bare) === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
    if (mapped) return mapped[1]!.startsWith("169.254.");
    return /^fe[89ab][0-9a-f]:/.test(bare);
  }
  return false;
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
