// The typed calls of the people routes (client/wire/routes/people.ts, docs/people.md): the directory and one's own
// person for every device; the rest needs the admin role.
import type { RouteInput } from "../../wire/routes/route.ts";
import {
  auditRoute,
  createPersonRoute,
  listPeopleRoute,
  myPersonRoute,
  peopleDirectoryRoute,
  removePersonRoute,
  updatePersonRoute,
  type AuditEntry,
  type DirectoryEntry,
  type Person,
} from "../../wire/routes/people.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class PeopleCalls extends RouteCaller {
  /** Live people's ids and names (to pick whom to share with). */
  async peopleDirectory(): Promise<DirectoryEntry[]> {
    return (await this.call(peopleDirectoryRoute, {})).people;
  }

  /** The person this device (or token) acts for. */
  async myPerson(): Promise<Person> {
    return (await this.call(myPersonRoute, {})).person;
  }

  async listPeople(): Promise<Person[]> {
    return (await this.call(listPeopleRoute, {})).people;
  }

  async createPerson(body: RouteInput<typeof createPersonRoute>["body"]): Promise<Person> {
    return (await this.call(createPersonRoute, { body })).person;
  }

  async updatePerson(personId: string, body: RouteInput<typeof updatePersonRoute>["body"]): Promise<Person> {
    return (await this.call(updatePersonRoute, { params: { person_id: personId }, body })).person;
  }

  /** Removes a person: their devices are revoked at once; their chats deleted, or transferred to `to`. */
  async removePerson(personId: string, chats: { chats: "delete" } | { chats: "transfer"; to: string }): Promise<void> {
    await this.call(removePersonRoute, { params: { person_id: personId }, query: chats });
  }

  async auditLog(): Promise<AuditEntry[]> {
    return (await this.call(auditRoute, {})).entries;
  }
}
