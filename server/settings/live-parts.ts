// Settings that parts built once at start read at each use, so a PATCH /settings reaches them without a restart:
// each getter reads the settings in force at that moment.
import type { PushConfig } from "../config/push.ts";
import type { TitleSettings } from "../runner/titles.ts";
import type { SettingsService } from "./settings-service.ts";

export function liveTitles(settings: Pick<SettingsService, "config">): TitleSettings {
  return {
    get enabled() {
      return settings.config.titles.enabled;
    },
    get model() {
      return settings.config.titles.title_model;
    },
  };
}

/**
 * The push config as in force, when push was configured at start (undefined otherwise: turning push on, or its
 * `subject`, takes a restart). Removed later, its values at start stay for the service while the routes answer 404.
 */
export function livePushConfig(settings: Pick<SettingsService, "config">): PushConfig | undefined {
  const atStart = settings.config.push;
  if (!atStart) return undefined;
  const current = () => settings.config.push ?? atStart;
  return Object.assign(liveFields(current, LIVE_PUSH_FIELDS), { subject: atStart.subject });
}

/** The push settings a PATCH changes in place: all but `subject`. */
const LIVE_PUSH_FIELDS = [
  "allowed_hosts",
  "allow_insecure_endpoints",
  "min_severity",
  "replies",
  "interaction_ttl_seconds",
  "max_subscriptions_per_device",
] as const satisfies ReadonlyArray<Exclude<keyof PushConfig, "subject">>;

/** An object whose `keys` each read `current()` at that moment (a getter each, as an object literal's). */
function liveFields<T, K extends keyof T>(current: () => T, keys: readonly K[]): Pick<T, K> {
  const view = {} as Pick<T, K>;
  for (const key of keys)
    Object.defineProperty(view, key, { get: () => current()[key], enumerable: true, configurable: true });
  return view;
}
