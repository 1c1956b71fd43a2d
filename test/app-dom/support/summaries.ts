// A chat's list entry as the server sends it, for the list and history screen tests: one message, the default agent,
// created when it was last updated.
import type { SessionSummary } from "../../../client/index.ts";

export const summary = (id: string, title: string, updated_at: string): SessionSummary => ({
  id,
  title,
  agent_id: "default",
  model: null,
  created_at: updated_at,
  updated_at,
  message_count: 1,
});
