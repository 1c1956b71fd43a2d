// docs/settings.md "Connections": a link-local address is refused in every spelling a URL or a resolver can give it
// (169.254.0.0/16 as dotted, decimal, hex or octal IPv4; fe80::/10 compressed, in full, zero-padded, upper case; an
// IPv6 address carrying a 169.254 address in its last 32 bits, dotted or hex), and nothing next to those ranges is.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isLinkLocalAddress, urlIsLinkLocal } from "../../server/settings/link-local.ts";
import { itHolds } from "../support/properties.ts";

const byte = fc.integer({ min: 0, max: 255 });
const group = fc.integer({ min: 0, max: 0xffff });

/** An IPv4 address [a, b, c, d] written the ways inet_aton and WHATWG URL read it. */
function ipv4Spellings([a, b, c, d]: number[]): string[] {
  const whole = ((a! << 24) >>> 0) + (b! << 16) + (c! << 8) + d!;
  return [
    `${a}.${b}.${c}.${d}`,
    String(whole),
    `0x${whole.toString(16)}`,
    [a, b, c, d].map((part) => `0${part!.toString(8)}`).join("."),
  ];
}

/** IPv6 addresses carrying [a, b, c, d] in their last 32 bits: mapped, translated, compatible, NAT64, dotted or hex. */
function carryingSpellings([a, b, c, d]: number[]): string[] {
  const hex = `${((a! << 8) + b!).toString(16)}:${((c! << 8) + d!).toString(16)}`;
  const dotted = `${a}.${b}.${c}.${d}`;
  const prefixes = ["::ffff:", "0:0:0:0:0:ffff:", "0000:0000:0000:0000:0000:FFFF:", "::ffff:0:", "::", "64:ff9b::"];
  return prefixes.flatMap((prefix) => [`${prefix}${dotted}`, `${prefix}${hex}`, `${prefix}${hex}`.toUpperCase()]);
}

/** An IPv6 address (eight groups) compressed, in full, zero-padded and in upper case. */
function ipv6Spellings(groups: number[]): string[] {
  const full = groups.map((part) => part.toString(16));
  const padded = groups.map((part) => part.toString(16).padStart(4, "0"));
  const compressed = full.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
  return [full.join(":"), padded.join(":"), compressed, compressed.toUpperCase()];
}

const linkLocalV4 = fc.tuple(byte, byte).map(([c, d]) => [169, 254, c, d]);
const linkLocalV6 = fc
  .tuple(
    fc.integer({ min: 0xfe80, max: 0xfebf }),
    fc.array(fc.oneof(fc.constant(0), group), { minLength: 7, maxLength: 7 }),
  )
  .map(([first, rest]) => [first, ...rest]);

/** Addresses next to the ranges: 169.253/16 and 169.255/16, fe7f and fec0-feff, and 169.254 behind other prefixes. */
const nearV4 = fc.tuple(fc.constantFrom(253, 255), byte, byte).map(([b, c, d]) => [169, b, c, d]);
const nearV6 = fc
  .tuple(
    fc.oneof(fc.constant(0xfe7f), fc.integer({ min: 0xfec0, max: 0xfeff })),
    fc.array(group, { minLength: 7, maxLength: 7 }),
  )
  .map(([first, rest]) => [first, ...rest]);
const otherPrefixes = fc
  .tuple(fc.constantFrom("2001:db8::", "64:ff9c::", "::fffe:", "1::ffff:"), byte, byte)
  .map(([prefix, c, d]) => `${prefix}a9fe:${((c << 8) + d).toString(16)}`);

describe("link-local addresses", () => {
  itHolds(
    "refuses 169.254.0.0/16 in every IPv4 spelling, and in every IPv6 form carrying it",
    fc.property(linkLocalV4, (address) => {
      for (const spelling of ipv4Spellings(address)) {
        expect(urlIsLinkLocal(`http://${spelling}/v1`), spelling).toBe(true);
      }
      for (const spelling of carryingSpellings(address)) {
        expect(isLinkLocalAddress(spelling), spelling).toBe(true);
        expect(urlIsLinkLocal(`http://[${spelling}]:8080/v1`), spelling).toBe(true);
      }
    }),
    { runs: 200, ms: 5000 },
  );

  itHolds(
    "refuses fe80::/10 in every spelling",
    fc.property(linkLocalV6, (groups) => {
      for (const spelling of ipv6Spellings(groups)) {
        expect(isLinkLocalAddress(spelling), spelling).toBe(true);
        expect(urlIsLinkLocal(`https://[${spelling}]/v1`), spelling).toBe(true);
      }
    }),
    { runs: 200, ms: 5000 },
  );

  itHolds(
    "lets the addresses next to those ranges through",
    fc.property(nearV4, nearV6, otherPrefixes, (v4, v6, prefixed) => {
      const spellings = [
        ...ipv4Spellings(v4).map((spelling) => `http://${spelling}/v1`),
        ...carryingSpellings(v4).map((spelling) => `http://[${spelling}]/v1`),
        ...ipv6Spellings(v6).map((spelling) => `http://[${spelling}]/v1`),
        `http://[${prefixed}]/v1`,
      ];
      for (const url of spellings) expect(urlIsLinkLocal(url), url).toBe(false);
    }),
    { runs: 200, ms: 5000 },
  );

  it("reads a resolver's answers (a zone id included) and leaves names and garbage alone", () => {
    expect(isLinkLocalAddress("fe80::1%eth0")).toBe(true);
    expect(isLinkLocalAddress("[fe80::1]")).toBe(true);
    for (const other of ["example.com", "", "::", "::1", "127.0.0.1", "10.0.0.1", "fe80", "169.254.1.1.1"])
      expect(isLinkLocalAddress(other), other).toBe(false);
    expect(urlIsLinkLocal("not a url")).toBe(false);
  });
});
