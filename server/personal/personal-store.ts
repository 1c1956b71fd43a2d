// Each person's own settings and prompt library (docs/settings.md "Personal"), kept in SQLite by person_id. Every
// read and write names the person, so one person's ids never reach another's rows.
import { randomUUID } from "node:crypto";
import { MAX_PROMPTS, type PersonalSettings, type Prompt } from "../../client/wire/routes/personal.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { conflict, notFound } from "../errors.ts";

const NO_SETTINGS: PersonalSettings = { instructions: "", default_agent: null, default_model: null };

interface PromptRow {
  id: string;
  title: string;
  text: string;
  created_at: number;
  updated_at: number;
}

export class PersonalStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  settings(personId: string): PersonalSettings {
    const row = this.db
      .prepare<[string], PersonalSettings>(
        "SELECT instructions, default_agent, default_model FROM personal_settings WHERE person_id = ?",
      )
      .get(personId);
    return row ?? { ...NO_SETTINGS };
  }

  updateSettings(personId: string, change: Partial<PersonalSettings>): PersonalSettings {
    const next = { ...this.settings(personId), ...stripUndefined(change) };
    this.db
      .prepare(
        `INSERT INTO personal_settings (person_id, instructions, default_agent, default_model) VALUES (?, ?, ?, ?)
         ON CONFLICT (person_id) DO UPDATE SET instructions = excluded.instructions,
           default_agent = excluded.default_agent, default_model = excluded.default_model`,
      )
      .run(personId, next.instructions, next.default_agent, next.default_model);
    return next;
  }

  prompts(personId: string): Prompt[] {
    return this.db
      .prepare<[string], PromptRow>(
        "SELECT id, title, text, created_at, updated_at FROM prompts WHERE person_id = ? ORDER BY title COLLATE NOCASE, id",
      )
      .all(personId);
  }

  createPrompt(personId: string, input: { title: string; text: string }): Prompt {
    return this.db.transaction(() => {
      const count = this.db
        .prepare<[string], { n: number }>("SELECT count(*) AS n FROM prompts WHERE person_id = ?")
        .get(personId)!.n;
      if (count >= MAX_PROMPTS)
        throw conflict("prompt_limit_reached", `a library keeps at most ${MAX_PROMPTS} prompts: delete one first`);
      const now = this.clock.now();
      const prompt: Prompt = { id: `prm_${randomUUID()}`, ...input, created_at: now, updated_at: now };
      this.db
        .prepare("INSERT INTO prompts (id, person_id, title, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(prompt.id, personId, prompt.title, prompt.text, now, now);
      return prompt;
    })();
  }

  updatePrompt(
    personId: string,
    id: string,
    change: { title?: string | undefined; text?: string | undefined },
  ): Prompt {
    const current = this.prompt(personId, id);
    const next: Prompt = { ...current, ...stripUndefined(change), updated_at: this.clock.now() };
    this.db
      .prepare("UPDATE prompts SET title = ?, text = ?, updated_at = ? WHERE id = ? AND person_id = ?")
      .run(next.title, next.text, next.updated_at, id, personId);
    return next;
  }

  deletePrompt(personId: string, id: string): void {
    const deleted = this.db.prepare("DELETE FROM prompts WHERE id = ? AND person_id = ?").run(id, personId);
    if (deleted.changes === 0) throw promptNotFound(id);
  }

  private prompt(personId: string, id: string): Prompt {
    const row = this.db
      .prepare<[string, string], PromptRow>(
        "SELECT id, title, text, created_at, updated_at FROM prompts WHERE id = ? AND person_id = ?",
      )
      .get(id, personId);
    if (!row) throw promptNotFound(id);
    return row;
  }
}

function promptNotFound(id: string) {
  return notFound("prompt_not_found", `you have no prompt "${id.slice(0, 100)}"`);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
