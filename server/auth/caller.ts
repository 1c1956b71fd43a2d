// Who is calling, as one typed value (docs/server.md "HTTP auth"): the admin, a paired device or a producer. Every
// request but the open ones carries it on `request.caller`, built by `callerOf` below for a direct HTTP call (a bearer
// token) and a call the bridge relayed (a relay pass) alike, so a fact about the caller (its person and role, once
// people exist) is added in this one place and holds on both paths.

/** What a household member may do; unset until people exist. */
export type CallerRole = "admin" | "member";

interface CallerFacts {
  person_id?: string;
  role?: CallerRole;
}

export type Caller =
  | (CallerFacts & { kind: "admin" })
  | (CallerFacts & { kind: "device"; device_id: string })
  /** A producer token: may only publish and resolve notifications (producer-scope.ts). */
  | (CallerFacts & { kind: "producer"; producer_id: string; producer_name: string });

/** What a credential proved, before it is a caller: the token's (or relay pass's) owner. */
export type Credential =
  | { kind: "admin" }
  | { kind: "device"; device_id: string }
  | { kind: "producer"; producer_id: string; producer_name: string };

/**
 * A relayed call's proof of its device (server/forwarder/api-relay.ts): the process's relay secret and the device the
 * bridge authenticated. It travels on the in-process request object itself (in-process-request.ts), never in a header,
 * and the authenticator compares the secret before it believes the device.
 */
export interface RelayPass {
  readonly secret: string;
  readonly device_id: string;
}

/** The one builder of a caller, for direct and relayed calls alike. */
export function callerOf(credential: Credential): Caller {
  return { ...credential };
}

/** The calling device's id, or undefined when the caller is not a device. */
export function deviceIdOf(caller: Caller | undefined): string | undefined {
  return caller?.kind === "device" ? caller.device_id : undefined;
}
