// How a peer is counted (bridge/socket/peer-address.ts, docs/bridge.md B43): an IPv6 subscriber holds a whole /64, so
// per-address pairing and socket budgets count the /64; an IPv4-mapped address counts as its IPv4 address.
import { describe, expect, it } from "vitest";
import { peerAddress } from "../../bridge/socket/peer-address.ts";

describe("peerAddress", () => {
  it("counts every address of one IPv6 /64 as one peer, and different /64s apart", () => {
    const a = peerAddress("2001:db8:1:2:aaaa::1");
    expect(peerAddress("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe(a);
    expect(peerAddress("2001:0db8:0001:0002::7")).toBe(a);
    expect(peerAddress("2001:db8:1:3::1")).not.toBe(a);
  });

  it("reads an IPv4-mapped address as the IPv4 address, and keeps IPv4 as it is", () => {
    expect(peerAddress("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(peerAddress("192.0.2.7")).toBe("192.0.2.7");
  });

  it("keeps what it cannot parse, and names a missing address", () => {
    expect(peerAddress("not-an-address")).toBe("not-an-address");
    expect(peerAddress(undefined)).toBe("unknown");
  });
});
