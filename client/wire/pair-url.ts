// Reading a pair_url (docs/client.md "From a pair_url": `<app url>/#/pair?code=<code>&bridge=<bridge_url, URL-encoded>[&key=...]`), the
// link behind the QR code `npm run pair` and the app's "Add device" show. An app opened from it pairs with the
// code on that bridge. Anything else (another route, a missing code, a bridge that is not ws:// or wss://) is
// not a pairing link: undefined, never an exception, since the input is whatever URL the app was opened at.
import { z } from "zod";
import { lazySchema } from "./built-on-first-use.ts";

export interface PairLink {
  code: string;
  /** The bridge's phoenix endpoint, e.g. ws://192.168.1.5:4000/socket. */
  bridge: string;
  /** The server's public key (base64url), with end-to-end encryption. */
  key?: string;
}

const pairQuerySchema = lazySchema(() =>
  z.object({
    code: z.string().trim().min(1).max(100),
    bridge: z.string().regex(/^wss?:\/\/[^\s]+$/i, "must be a ws:// or wss:// URL"),
    key: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, "a 32-byte base64url key")
      .optional(),
  }),
);

/** The code, bridge and key of a pair_url (or of its `#/pair?...` fragment alone); undefined if it is none. */
export function parsePairUrl(url: string): PairLink | undefined {
  const hashAt = url.indexOf("#");
  const fragment = hashAt === -1 ? "" : url.slice(hashAt + 1);
  const match = /^\/?pair\?(.*)$/s.exec(fragment);
  if (!match) return undefined;
  const params = new URLSearchParams(match[1]);
  const parsed = pairQuerySchema.safeParse({
    code: params.get("code") ?? undefined,
    bridge: params.get("bridge") ?? undefined,
    key: params.get("key") ?? undefined,
  });
  if (!parsed.success) return undefined;
  const { code, bridge, key } = parsed.data;
  return key === undefined ? { code, bridge } : { code, bridge, key };
}

/** Builds a pair_url; the server's POST /pairing and `npm run pair` use it, so parse and build agree. */
export function buildPairUrl(appUrl: string, link: PairLink): string {
  const params = new URLSearchParams({ code: link.code, bridge: link.bridge });
  if (link.key !== undefined) params.set("key", link.key);
  return `${appUrl.replace(/\/+$/, "")}/#/pair?${params.toString()}`;
}
