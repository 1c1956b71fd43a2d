// The grants the bridge authorizes apps with (live device token hashes, unused code hashes): read for every join's
// params and pushed again on every pairing change while a join is current, so a new device or a revocation reaches
// the bridge at once.
import type { ServerContext } from "../context.ts";
import type { PairingService } from "../pairing/pairing-service.ts";
import type { Audiences } from "../e2e/audiences.ts";
import type { BridgeLink } from "./bridge-link.ts";

export type Grants = ReturnType<PairingService["grants"]>;

/**
 * Each device's grant with its person's audience tag (server/e2e/audiences.ts): the bridge sends a device only the
 * events whose audience holds its tag. A device of no person gets no tag, and so nothing.
 */
export function taggedGrants(grants: Grants, audiences: Audiences): Grants {
  const people = audiences.devicePeople();
  return {
    ...grants,
    devices: grants.devices.map((grant) => {
      const person = people.get(grant.device_id);
      return person === undefined ? grant : { ...grant, audience: audiences.tagOf(person) };
    }),
  };
}

export class GrantsFeed {
  private readonly unsubscribe: () => void;

  constructor(
    private readonly pairing: PairingService,
    private readonly audiences: Audiences,
    private readonly link: BridgeLink,
    private readonly log: ServerContext["log"],
  ) {
    this.unsubscribe = pairing.onChange(() => {
      audiences.devicesChanged();
      if (link.joined) this.push();
    });
  }

  /**
   * The grants are read in phoenix callbacks and change listeners, where a throw (SQLITE_BUSY, the database closing)
   * would end the process: a failed read is logged, and the grants go with the next change or rejoin.
   */
  read(): Grants | undefined {
    try {
      return taggedGrants(this.pairing.grants(), this.audiences);
    } catch (error) {
      this.log.error(
        { err: error },
        "could not read the pairing grants for the bridge; sending them at the next change or rejoin",
      );
      return undefined;
    }
  }

  push(): void {
    const grants = this.read();
    if (grants) this.link.push("grants", grants);
  }

  stop(): void {
    this.unsubscribe();
  }
}
