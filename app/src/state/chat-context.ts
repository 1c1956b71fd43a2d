// The open chat's controller (chat.ts), handed to the chat screen's parts by context: the composer, the message list
// and each message's toolbar render from it and call it, without the screen threading it through every row.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Chat } from "./chat.ts";

export const ChatContext = createContext<Chat | undefined>(undefined);

export function useChat(): Chat {
  const chat = useContext(ChatContext);
  if (!chat) throw new Error("useChat outside <ChatContext.Provider>");
  return chat;
}
