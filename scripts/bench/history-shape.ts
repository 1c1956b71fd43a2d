// The shape of the history benchmarks' data (history-seed.ts writes it, history-server.ts serves it): --people people
// (the first is the Owner), each owning --chats chats of --messages messages, the Owner's first chat --long messages
// long, and --devices devices of the Owner live.
import { z } from "zod";

export const historyShape = z.object({
  people: z.number().int().min(1),
  chats: z.number().int().min(1),
  messages: z.number().int().min(0),
  /** Messages in each chat of the people other than the Owner (default: `messages`); their chats fill the tables. */
  others_messages: z.number().int().min(0).optional(),
  long: z.number().int().min(0),
  devices: z.number().int().min(0),
});
export type HistoryShape = z.infer<typeof historyShape>;
