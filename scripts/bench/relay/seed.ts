// What the relay benchmark's server serves (server-child.ts, sealed-sizes.ts): a session of ten messages to read, and
// paired devices, plain ones or encrypting ones (paired with the apps' public key).
import type { ServerContext } from "../../../server/context.ts";

/** `count` devices paired by code, with `deviceKey` when given (then they are encrypting devices). */
export function pairDevices(
  ctx: ServerContext,
  count: number,
  name: string,
  deviceKey?: string,
): { token: string; device_id: string }[] {
  return Array.from({ length: count }, (_, i) => {
    const redeemed = ctx.pairing.redeem(ctx.pairing.createCode().code, `${name} ${i}`, deviceKey);
    if (!redeemed.ok) throw new Error("pairing failed");
    return { token: redeemed.device_token, device_id: redeemed.device_id };
  });
}

/** A session of ten messages (~2.6 KB of JSON read back); answers its messages' path. */
export function seedSession(ctx: ServerContext): string {
  const session = ctx.sessions.create();
  for (let i = 0; i < 10; i++)
    ctx.sessions.append(session.id, {
      role: i % 2 === 0 ? "user" : "assistant",
      content: `message ${i} `.repeat(20),
      metadata: {},
    });
  return `/sessions/${session.id}/messages`;
}
