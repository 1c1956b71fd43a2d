// The first module the entry evaluates (docs/app.md "Start-up", SU7): it starts reading the cached chat list's head
// from IndexedDB before the rest of the app's modules are evaluated, so the database's open and read overlap that
// evaluation instead of following it. It imports one constant only: anything it imported would be evaluated first.
// The value is read raw here and checked by the offline cache when the start takes it (its format stamp: list-head.ts).
//
// The read never makes the database: opened without a version, a database that does not exist would be created
// empty; its upgrade is aborted instead, which leaves no database behind (a browser never paired, or wiped, keeps
// none). The connection closes as soon as the read is done, and at once when another wants the database deleted or
// upgraded (the service worker's wipe of a revoked device, the app's own first open adding its stores).

import { OFFLINE_DB } from "./state/offline-db-name.ts";

/** The offline cache's store of the list (the client library's `sessions`) and its head's record there. */
const STORE = "sessions";
export const HEAD_KEY = "sessions_head";

/** Resolves with the stored head (unchecked), or undefined: no database, no record, or any failure. */
function readHead(factory: IDBFactory): Promise<unknown> {
  return new Promise((resolve) => {
    const done = (value: unknown) => resolve(value);
    let request: IDBOpenDBRequest;
    try {
      request = factory.open(OFFLINE_DB);
    } catch {
      return done(undefined);
    }
    // Only a database that did not exist asks for an upgrade here (no version was named): leave it unmade.
    request.onupgradeneeded = () => request.transaction?.abort();
    request.onerror = () => done(undefined);
    request.onblocked = () => done(undefined);
    request.onsuccess = () => readFrom(request.result, done);
  });
}

function readFrom(db: IDBDatabase, done: (value: unknown) => void): void {
  db.onversionchange = () => db.close();
  try {
    const read = db.transaction(STORE, "readonly").objectStore(STORE).get(HEAD_KEY);
    read.onsuccess = () => (db.close(), done(read.result));
    read.onerror = () => (db.close(), done(undefined));
  } catch {
    // No such store (a database made by another build): nothing cached to show.
    db.close();
    done(undefined);
  }
}

const factory = (globalThis as { indexedDB?: IDBFactory }).indexedDB;
let early: Promise<unknown> | undefined = factory ? readHead(factory) : undefined;

/**
 * The read started at load, once: the first caller gets it, later callers undefined (a later read of the head must
 * see what has been written since, so it goes to the database).
 */
export function takeEarlyHead(): Promise<unknown> | undefined {
  const taken = early;
  early = undefined;
  return taken;
}
