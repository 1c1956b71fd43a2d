// The app's frame: pairing when no device credentials exist, otherwise the top bar (connection state, menu),
// application banners, and the routed screen. Wide screens keep the chat list as a sidebar.
import { useEffect } from "preact/hooks";
import { BannerStack } from "./components/banner-stack.tsx";
import { TopBar } from "./components/top-bar.tsx";
import { ChatScreen } from "./screens/chat-screen.tsx";
import { DevicesScreen } from "./screens/devices-screen.tsx";
import { HistoryScreen } from "./screens/history-screen.tsx";
import { PairScreen } from "./screens/pair-screen.tsx";
import { SessionList } from "./screens/session-list.tsx";
import { paired } from "./state/connection.ts";
import { route, type Route } from "./state/router.ts";
import { sessions, sessionsLoaded } from "./state/sessions.ts";
import { startSync } from "./state/sync.ts";
import { useWideScreen } from "./state/use-wide-screen.ts";

export function App({ ready }: { ready: boolean }) {
  const current = paired.value;
  const now = route.value;
  useEffect(() => (current ? startSync(current) : undefined), [current]);
  if (!ready) return null;
  if (now.name === "devices") return <Framed>{<DevicesScreen />}</Framed>;
  if (!current || now.name === "pair") return now.name === "pair" ? <PairScreen code={now.code} bridge={now.bridge} serverKey={now.key} /> : <PairScreen />;
  return (
    <Framed>
      <Main route={now} />
    </Framed>
  );
}

function Framed({ children }: { children: preact.ComponentChildren }) {
  return (
    <div class="app">
      <TopBar />
      <BannerStack />
      {children}
    </div>
  );
}

function Main({ route: now }: { route: Route }) {
  const wide = useWideScreen();
  if (now.name === "history") return <HistoryScreen />;
  const sessionId = now.name === "chat" ? now.session_id : undefined;
  // A freshly paired app with no chats opens on the composer: the first send creates the session.
  const showChat = now.name === "chat" || now.name === "new_chat" || (sessionsLoaded.value && sessions.value.length === 0);
  if (!wide) return showChat ? <ChatScreen key={sessionId ?? "new"} session_id={sessionId} /> : <SessionList />;
  return (
    <div class="split">
      <SessionList activeId={sessionId} />
      <ChatScreen key={sessionId ?? "new"} session_id={sessionId} />
    </div>
  );
}
