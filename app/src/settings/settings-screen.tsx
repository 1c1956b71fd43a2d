// Settings (docs/app.md "Settings"): the admin's sections (Connections, Agents, MCP servers) behind the admin token,
// and Personal and Data (export my chats) for everyone. Loaded on first use: none of it is needed to chat.
import type { FunctionComponent } from "preact";
import { AdminLogin } from "../components/admin-login.tsx";
import { hrefOf, type SettingsSection } from "../state/router.ts";
import { useStore } from "../state/store.ts";
import { AgentsSection } from "./agents.tsx";
import { ConnectionsSection } from "./connections.tsx";
import { DataSection } from "./data.tsx";
import { McpSection } from "./mcp-servers.tsx";
import { PersonalSection } from "./personal.tsx";
import "./settings.css";

const SECTIONS: Array<{ id: SettingsSection; label: string; admin: boolean; body: FunctionComponent }> = [
  { id: "personal", label: "Personal", admin: false, body: PersonalSection },
  { id: "connections", label: "Connections", admin: true, body: ConnectionsSection },
  { id: "agents", label: "Agents", admin: true, body: AgentsSection },
  { id: "mcp", label: "MCP servers", admin: true, body: McpSection },
  { id: "data", label: "Data", admin: false, body: DataSection },
];

export function SettingsScreen({ section }: { section: SettingsSection }) {
  const { admin } = useStore();
  const current = SECTIONS.find((s) => s.id === section) ?? SECTIONS[0]!;
  const Body = current.body;
  return (
    <main class="page settings">
      <h1>Settings</h1>
      <nav class="settings-tabs" aria-label="Settings sections">
        {SECTIONS.map((s) => (
          <a
            key={s.id}
            href={hrefOf({ name: "settings", section: s.id })}
            aria-current={s.id === section ? "page" : undefined}
          >
            {s.label}
          </a>
        ))}
      </nav>
      {current.admin && !admin.token.value ? <AdminLogin title={current.label} /> : <Body key={current.id} />}
    </main>
  );
}
