// The settings parts built at start read at each use (server/settings/live-parts.ts): the push config follows a
// change of the settings in force, keeps its `subject` from the start, and keeps its values at start once push is
// removed; a server started without push has none.
import { describe, expect, it } from "vitest";
import { pushConfigSchema, type PushConfig } from "../../server/config/push.ts";
import { livePushConfig } from "../../server/settings/live-parts.ts";
import type { SettingsService } from "../../server/settings/settings-service.ts";

type Config = SettingsService["config"];
const push = (change: Partial<PushConfig>): PushConfig =>
  pushConfigSchema.parse({ subject: "mailto:ops@example.com", ...change });

describe("livePushConfig", () => {
  it("reads each setting as in force, keeps the subject of the start, and the start's values once push is removed", () => {
    const settings = { config: { push: push({}) } as Config };
    const live = livePushConfig(settings)!;
    expect({ ...live }).toEqual(push({}));

    const changed = { min_severity: "error", replies: false, max_subscriptions_per_device: 2 } as const;
    settings.config = { push: { ...push(changed), subject: "mailto:new@example.com" } } as Config;
    expect({ ...live }).toEqual(push(changed));

    settings.config = {} as Config;
    expect({ ...live }).toEqual(push({}));
  });

  it("is undefined when the server started without push", () => {
    expect(livePushConfig({ config: {} as Config })).toBeUndefined();
  });
});
