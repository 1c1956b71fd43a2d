// The typed calls of the personal routes (client/wire/routes/personal.ts): the caller's own settings and prompts.
import {
  createPromptRoute,
  deletePromptRoute,
  getPersonalSettingsRoute,
  listPromptsRoute,
  patchPersonalSettingsRoute,
  updatePromptRoute,
  type PersonalSettings,
  type Prompt,
} from "../../wire/routes/personal.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class PersonalCalls extends RouteCaller {
  /** The caller's own instructions, default agent and default model. */
  getPersonalSettings(): Promise<PersonalSettings> {
    return this.call(getPersonalSettingsRoute, {});
  }

  updatePersonalSettings(change: Partial<PersonalSettings>): Promise<PersonalSettings> {
    return this.call(patchPersonalSettingsRoute, { body: change });
  }

  async listPrompts(): Promise<Prompt[]> {
    return (await this.call(listPromptsRoute, {})).prompts;
  }

  async createPrompt(input: { title: string; text: string }): Promise<Prompt> {
    return (await this.call(createPromptRoute, { body: input })).prompt;
  }

  async updatePrompt(id: string, change: { title?: string; text?: string }): Promise<Prompt> {
    return (await this.call(updatePromptRoute, { params: { prompt_id: id }, body: change })).prompt;
  }

  async deletePrompt(id: string): Promise<void> {
    await this.call(deletePromptRoute, { params: { prompt_id: id } });
  }
}
