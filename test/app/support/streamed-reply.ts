// A plain assistant reply as the scripted backend streams it: an opening chunk, the text in pieces of `size`
// characters, a closing "stop". With `pauseAfter`, the backend holds the stream after that many parts until the test
// resumes it (stack.backend.nextPause()), so a test can look at the screen mid-reply.
import { chunk, pieces, type Scenario } from "../../../scripts/scripted-backend/index.ts";

export function streamedReply(reply: string, size: number, pauseAfter?: number): Scenario {
  const parts = pieces(reply, size).map((text) => ({ data: chunk({ content: text }) }));
  return {
    kind: "stream",
    parts: [{ data: chunk({ role: "assistant", content: "" }) }, ...parts, { data: chunk({}, "stop") }],
    ...(pauseAfter === undefined ? {} : { pauseAfter }),
  };
}
