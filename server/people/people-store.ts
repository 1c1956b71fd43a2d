// The people of a server (docs/people.md "Model"): rows of the `people` table, read and written here only. A removed
// person keeps its row (removed_at) so audit entries and transferred chats still name someone; every other read
// asks for live people. "The acting admin" of the admin token is the oldest live admin person.
import { randomUUID } from "node:crypto";
import type { Person, PersonAgents, PersonRole } from "../../client/wire/routes/people.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";

type Row = {
  id: string;
  name: string;
  role: PersonRole;
  agents: string;
  max_requests_per_day: number | null;
  created_at: number;
  removed_at: number | null;
};

export interface NewPerson {
  name: string;
  role?: PersonRole | undefined;
  agents?: PersonAgents | undefined;
  max_requests_per_day?: number | undefined;
}

export interface PersonPatch {
  name?: string | undefined;
  role?: PersonRole | undefined;
  agents?: PersonAgents | undefined;
  max_requests_per_day?: number | null | undefined;
}

const COLUMNS = "id, name, role, agents, max_requests_per_day, created_at, removed_at";

export function personOf(row: Row): Person {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    agents: JSON.parse(row.agents) as PersonAgents,
    ...(row.max_requests_per_day !== null ? { max_requests_per_day: row.max_requests_per_day } : {}),
    created_at: new Date(row.created_at).toISOString(),
    removed_at: row.removed_at === null ? null : new Date(row.removed_at).toISOString(),
  };
}

export class PeopleStore {
  private readonly selectAll;
  private readonly selectOne;
  private readonly selectLive;
  private readonly selectActingAdmin;
  private readonly countAdmins;
  private readonly selectOfDevice;
  private readonly selectOfProducer;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.selectAll = db.prepare<[], Row>(`SELECT ${COLUMNS} FROM people ORDER BY created_at, id`);
    this.selectOne = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM people WHERE id = ?`);
    this.selectLive = db.prepare<[], Row>(`SELECT ${COLUMNS} FROM people WHERE removed_at IS NULL ORDER BY name, id`);
    this.selectActingAdmin = db.prepare<[], Row>(
      `SELECT ${COLUMNS} FROM people WHERE removed_at IS NULL AND role = 'admin' ORDER BY created_at, rowid LIMIT 1`,
    );
    this.countAdmins = db.prepare<[], { n: number }>(
      "SELECT count(*) AS n FROM people WHERE removed_at IS NULL AND role = 'admin'",
    );
    this.selectOfDevice = db.prepare<[string], Row>(
      `SELECT p.id, p.name, p.role, p.agents, p.max_requests_per_day, p.created_at, p.removed_at
       FROM devices d JOIN people p ON p.id = d.person_id WHERE d.id = ?`,
    );
    this.selectOfProducer = db.prepare<[string], Row>(
      `SELECT p.id, p.name, p.role, p.agents, p.max_requests_per_day, p.created_at, p.removed_at
       FROM producers r JOIN people p ON p.id = r.person_id WHERE r.id = ?`,
    );
  }

  /** Everyone, removed people too, oldest first (GET /people). */
  list(): Person[] {
    return this.selectAll.all().map(personOf);
  }

  /** Live people's ids and names, by name (GET /people/directory). */
  directory(): { id: string; name: string }[] {
    return this.selectLive.all().map((row) => ({ id: row.id, name: row.name }));
  }

  /** A person, removed or not; undefined when unknown. */
  get(id: string): Person | undefined {
    const row = this.selectOne.get(id);
    return row ? personOf(row) : undefined;
  }

  /** A live person; undefined when unknown or removed. */
  live(id: string): Person | undefined {
    const person = this.get(id);
    return person?.removed_at === null ? person : undefined;
  }

  /** The person the admin token acts as: the oldest live admin (there is always one: last_admin keeps it so). */
  actingAdmin(): Person {
    const row = this.selectActingAdmin.get();
    if (!row) throw new Error("no live admin person: the people table lost its last admin");
    return personOf(row);
  }

  /** The person a device belongs to (revoked devices too). */
  ofDevice(deviceId: string): Person | undefined {
    const row = this.selectOfDevice.get(deviceId);
    return row ? personOf(row) : undefined;
  }

  /** The person a producer token belongs to. */
  ofProducer(producerId: string): Person | undefined {
    const row = this.selectOfProducer.get(producerId);
    return row ? personOf(row) : undefined;
  }

  liveAdminCount(): number {
    return this.countAdmins.get()!.n;
  }

  create(input: NewPerson): Person {
    const id = `per_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
    this.db
      .prepare(
        `INSERT INTO people (id, name, role, agents, max_requests_per_day, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.name,
        input.role ?? "member",
        JSON.stringify(input.agents ?? "*"),
        input.max_requests_per_day ?? null,
        this.clock.now(),
      );
    return this.get(id)!;
  }

  /** Applies a patch to a live person (absent fields stay; a null limit removes it). */
  update(id: string, patch: PersonPatch): Person {
    const sets: string[] = [];
    const values: (string | number | null)[] = [];
    const set = (column: string, value: string | number | null) => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (patch.name !== undefined) set("name", patch.name);
    if (patch.role !== undefined) set("role", patch.role);
    if (patch.agents !== undefined) set("agents", JSON.stringify(patch.agents));
    if (patch.max_requests_per_day !== undefined) set("max_requests_per_day", patch.max_requests_per_day);
    if (sets.length > 0)
      this.db.prepare(`UPDATE people SET ${sets.join(", ")} WHERE id = ? AND removed_at IS NULL`).run(...values, id);
    return this.get(id)!;
  }

  /** Marks a person removed; their devices, chats and tokens are the caller's business (people-service.ts). */
  markRemoved(id: string): void {
    this.db.prepare("UPDATE people SET removed_at = ? WHERE id = ? AND removed_at IS NULL").run(this.clock.now(), id);
  }
}
