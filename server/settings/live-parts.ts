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
  return {
    subject: atStart.subject,
    get allowed_hosts() {
      return current().allowed_hosts;
    },
    get allow_insecure_endpoints() {
      return current().allow_insecure_endpoints;
    },
    get min_severity() {
      return current().min_severity;
    },
    get replies() {
      return current().replies;
    },
    get interaction_ttl_seconds() {
      return current().interaction_ttl_seconds;
    },
    get max_subscriptions_per_device() {
      return current().max_subscriptions_per_device;
    },
  };
}
