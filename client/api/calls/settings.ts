// The typed calls of the server's settings routes (client/wire/routes/settings.ts, docs/settings.md): the admin's.
import {
  getSettingsRoute,
  patchSettingsRoute,
  testProviderRoute,
  type ProviderTest,
  type SettingsView,
} from "../../wire/routes/settings.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class SettingsCalls extends RouteCaller {
  /** The server's settings as in force (admin), every secret as "set" (docs/settings.md). */
  getSettings(): Promise<SettingsView> {
    return this.call(getSettingsRoute, {});
  }

  /**
   * Changes the settings with a JSON merge patch made against `expectedRevision` (409 revision_mismatch when they
   * moved since); "set" keeps a stored secret. Applied at once, without a restart.
   */
  patchSettings(expectedRevision: number, patch: Record<string, unknown>): Promise<SettingsView> {
    return this.call(patchSettingsRoute, { body: { expected_revision: expectedRevision, patch } });
  }

  /** Lists a provider's models and, with `complete`, makes a one-token completion (hosted backends bill it). */
  testProvider(providerId: string, options: { complete?: boolean } = {}): Promise<ProviderTest> {
    return this.call(testProviderRoute, { params: { provider_id: providerId }, body: options });
  }
}
