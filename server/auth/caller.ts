// Who is calling, as one typed value (docs/server.md "HTTP auth"): the admin, a paired device or a producer. Every
// request but the open ones carries it on `request.caller`, built by `callerOf` below for a direct HTTP call (a bearer
// token) and a call the bridge relayed (a relay pass) alike, so a fact about the caller (its person and role) is added
// in this one place and holds on both paths (docs/people.md "Callers").

/** What the caller's person may do on the server: the admin role manages people; a member does not. */
export type CallerRole = "admin" | "member";

interface CallerFacts {
  /** The person the caller acts for: a device's or a producer token's person; the admin token's is the acting admin. */
  person_id: string;
  role: CallerRole;
}

/** Where a caller's person is found (server/people/people-store.ts). */
export interface PersonLookup {
  /** The oldest live admin person: whom the admin token acts as. */
  actingAdmin(): { id: string; role: CallerRole };
  ofDevice(deviceId: string): { id: string; role: CallerRole; removed_at: string | null } | undefined;
  ofProducer(producerId: string): { id: string; role: CallerRole; removed_at: string | null } | undefined;
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

/**
 * The one builder of a caller, for direct and relayed calls alike: the credential and the person it acts for.
 * Undefined when that person is gone (a removed person's devices are revoked with them; a producer's token dies too).
 */
export function callerOf(credential: Credential, people: PersonLookup): Caller | undefined {
  const person =
    credential.kind === "admin"
      ? people.actingAdmin()
      : credential.kind === "device"
        ? people.ofDevice(credential.device_id)
        : people.ofProducer(credential.producer_id);
  if (person === undefined || ("removed_at" in person && person.removed_at !== null)) return undefined;
  return { ...credential, person_id: person.id, role: person.role };
}

/** The calling device's id, or undefined when the caller is not a device. */
export function deviceIdOf(caller: Caller | undefined): string | undefined {
  return caller?.kind === "device" ? caller.device_id : undefined;
}
