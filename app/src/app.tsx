// The app's frame: a share link's read-only view for anyone (no pairing needed), pairing when no device credentials exist, otherwise the top bar (connection state, menu), a
// once-only note on plain http: origins, application banners, and the routed screen. Wide screens keep the chat
// list as a sidebar.
import type { ComponentChildren } from "preact";
import { BannerStack } from "./components/banner-stack.tsx";
import { InsecureNotice } from "./components/insecure-notice.tsx";
import { lazyComponent } from "./components/lazy-component.tsx";
import { TopBar } from "./components/top-bar.tsx";
import { ChatScreen } from "./screens/chat-screen.tsx";
import { PairScreen } from "./screens/pair-screen.tsx";
import { SessionList } from "./screens/session-list.tsx";
import type { Route } from "./state/router.ts";
import { useStore } from "./state/store.ts";
import { useWideScreen } from "./state/use-wide-screen.ts";

const DevicesScreen = lazyComponent(() => import("./screens/devices-screen.tsx"), "DevicesScreen", "Devices screen");
const ArchivedScreen = lazyComponent(
  () => import("./screens/archived-screen.tsx"),
  "ArchivedScreen",
  "Archived screen",
);
const SettingsScreen = lazyComponent(
  () => import("./settings/settings-screen.tsx"),
  "SettingsScreen",
  "Settings screen",
);
const PeopleScreen = lazyComponent(() => import("./people/people-screen.tsx"), "PeopleScreen", "People screen");
const AuditScreen = lazyComponent(() => import("./people/audit-screen.tsx"), "AuditScreen", "Audit log");
// A share link's view opens without pairing, before the gate; it is its own chunk, so the first paint stays as it was.
const SharedView = lazyComponent(() => import("./people/shared-view.tsx"), "SharedView", "Shared chat");
const HistoryScreen = lazyComponent(() => import("./screens/history-screen.tsx"), "HistoryScreen", "History screen");

export function App({ ready }: { ready: boolean }) {
  const { connection, router } = useStore();
  const paired = connection.paired.value;
  const now = router.route.value;
  if (now.name === "shared") return <SharedView link={now.link} />;
  if (!ready) return null;
  if (now.name === "devices") return <Framed>{<DevicesScreen />}</Framed>;
  if (!paired || now.name === "pair") return <PairScreen />;
  return (
    <Framed>
      <Main route={now} />
    </Framed>
  );
}

function Framed({ children }: { children: ComponentChildren }) {
  return (
    <div class="app">
      <TopBar />
      <InsecureNotice />
      <BannerStack />
      {children}
    </div>
  );
}

function Main({ route: now }: { route: Route }) {
  const { sessions } = useStore();
  const wide = useWideScreen();
  if (now.name === "history") return <HistoryScreen />;
  if (now.name === "archived") return <ArchivedScreen />;
  if (now.name === "settings") return <SettingsScreen section={now.section} />;
  if (now.name === "people") return <PeopleScreen />;
  if (now.name === "audit") return <AuditScreen />;
  const sessionId = now.name === "chat" ? now.session_id : undefined;
  const startedOffline = now.name === "new_chat" ? now.client_session_id : undefined;
  // A freshly paired app with no chats opens on the composer: the first send creates the session.
  const showChat =
    now.name === "chat" || now.name === "new_chat" || (sessions.loaded.value && sessions.list.value.length === 0);
  const chat = <ChatScreen key={sessionId ?? "new"} session_id={sessionId} client_session_id={startedOffline} />;
  if (!wide) return showChat ? chat : <SessionList />;
  return (
    <div class="split">
      <SessionList activeId={sessionId ?? startedOffline} />
      {chat}
    </div>
  );
}
