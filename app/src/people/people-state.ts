// Who this device acts for and who else is on the server (docs/app.md "People"): the device's own person (its role
// decides whether the admin screens show) and the directory of live people (names for "Shared by", the Devices
// owners and the Share dialog). Loaded whenever a pairing starts and again on demand; an older server without
// people answers neither, and the app then shows no people at all.
import { computed, effect, signal, untracked, type ReadonlySignal } from "@preact/signals";
import type { DirectoryEntry, Person } from "../../../client/index.ts";
import type { Connection } from "../state/connection.ts";
import type { AppEnv } from "../state/env.ts";

export interface People {
  /** The person this device belongs to; undefined until loaded (or on a server without people). */
  readonly me: ReadonlySignal<Person | undefined>;
  /** Live people, ids and names. */
  readonly directory: ReadonlySignal<readonly DirectoryEntry[]>;
  /** Whether this device's person has the admin role (the People screen, everyone's devices). */
  readonly isAdmin: ReadonlySignal<boolean>;
  /** More than one live person: only then do chats and devices name their owners. */
  readonly several: ReadonlySignal<boolean>;
  nameOf(personId: string | undefined): string | undefined;
  /** Reads both again (after adding, renaming or removing someone). */
  refresh(): Promise<void>;
  /** Follows the pairing: loads on every new one, clears when unpaired; returns the function that stops. */
  follow(): () => void;
}

export function createPeople(env: AppEnv, connection: Connection): People {
  const me = signal<Person | undefined>(undefined);
  const directory = signal<readonly DirectoryEntry[]>([]);
  const load = async () => {
    const client = connection.paired.value?.client;
    if (!client) return;
    const [mine, everyone] = await Promise.all([client.myPerson(), client.peopleDirectory()]);
    me.value = mine;
    directory.value = everyone;
  };
  return {
    me,
    directory,
    isAdmin: computed(() => me.value?.role === "admin"),
    several: computed(() => directory.value.length > 1),
    nameOf: (personId) => directory.value.find((entry) => entry.id === personId)?.name,
    refresh: load,
    follow: () =>
      effect(() => {
        const current = connection.paired.value;
        me.value = undefined;
        directory.value = [];
        if (current) untracked(() => void load().catch((error: unknown) => env.report("reading people failed", error)));
      }),
  };
}
