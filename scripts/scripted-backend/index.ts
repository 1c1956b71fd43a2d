// The scripted chat-completions backend (docs/provider.md "Scripted backend"): start it, queue scenarios, read
// what it received. Stands in for a model server in tests, benchmarks and local trials; never a default backend.
export { startScriptedBackend, type ScriptedBackend, type ScriptedBackendOptions } from "./server.ts";
export type { PauseControl, RecordedRequest, Scenario, StreamPart } from "./scenarios.ts";
export {
  DIALECTS,
  chunk,
  completion,
  dialectStream,
  pieces,
  type Dialect,
  type Reply,
  type ReplyToolCall,
} from "./dialects.ts";
export { encodeStream, splitBytes } from "./encode.ts";
export { EMBEDDING_DIMENSIONS, embeddedWords, scriptedEmbedding } from "./embeddings.ts";
