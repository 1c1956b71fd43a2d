// The public entry of the client library: what an app imports (browser, React Native, Node).
export {
  connect,
  ChatClient,
  type ConnectOptions,
  type ClientProblem,
  type LoadedMessages,
} from "./connection/client.ts";
export { savedCursorSchema, type CursorStore, type SavedCursor } from "./connection/cursor-keeper.ts";
export { pair, PairingError, type PairOptions, type PairFailure } from "./connection/pair.ts";
export {
  credentialsSchema,
  saveCredentials,
  loadCredentials,
  forgetCredentials,
  serverFingerprint,
  type Credentials,
} from "./connection/credentials.ts";
export { fingerprint } from "./wire/crypto/index.ts";
export type { ConnectionStatus, StatusStopReason, ServerLink } from "./connection/machine.ts";
export {
  connectionBadge,
  CONNECTION_BADGE_LABELS,
  type ConnectionBadge,
  type ConnectionBadgeKind,
  type ConnectionBadgeLabel,
  type BadgeContext,
} from "./connection/badge.ts";
export { ServerApi } from "./api/server-api.ts";
export type { SendOptions, SendResult } from "./api/calls/requests.ts";
export type { SessionPage } from "./api/calls/sessions.ts";
export type { RegenerateOptions } from "./api/calls/turns.ts";
export type { AttachmentInput } from "./api/calls/assets.ts";
export type { PushSubscriptionJson } from "./api/calls/push.ts";
export type { InteractionAnswer } from "./api/calls/interactions.ts";
export {
  openSharedLink,
  openSharedBlob,
  parseSharedLink,
  SharedLinkError,
  type SharedLinkParts,
  type OpenSharedLinkOptions,
} from "./sharing/open-link.ts";
export { AdminClient, type AdminClientOptions } from "./api/admin.ts";
export { ProducerClient, type ProducerClientOptions, type PublishInput, type ResolveInput } from "./api/producer.ts";
export { isEvent, type KnownEvent, type KnownEventType, type EventOfType } from "./events/narrow.ts";
export type { ListenOptions } from "./events/listeners.ts";
export {
  memoryStorage,
  webStorage,
  asyncStorage,
  type StorageAdapter,
  type SyncStorageLike,
  type AsyncStorageLike,
} from "./storage/storage.ts";
export {
  IndexedDbCache,
  wipeCache,
  CacheUnavailableError,
  CACHE_DB_NAME,
  DEFAULT_CACHE_STORES,
  type CacheOptions,
} from "./storage/indexeddb-cache.ts";
export type { NotificationCenter, PresentedNotification } from "./notifications/center.ts";
export type { DismissMode, DismissResult } from "./notifications/dismissal.ts";
export type { Invalidations, Invalidation, InvalidationTarget, ReloadClaim } from "./notifications/invalidations.ts";
export {
  decidePresentation,
  actionResponseOwner,
  type PresentationDecision,
  type Platform,
} from "./notifications/presentation.ts";
export type { ClientRecord, ScopeRef } from "./notifications/record.ts";
export {
  NetworkError,
  ResponseError,
  UnauthorizedError,
  CursorExpiredResponseError,
  ProtocolError,
  ServerOfflineError,
} from "./transport/errors.ts";
/** @deprecated aliases of ResponseError and CursorExpiredResponseError, kept for apps written against 0.1. */
export { HttpError, CursorExpiredError } from "./transport/errors.ts";
export type { FetchLike, BinaryBody, Requester, RequestOptions } from "./transport/http.ts";
export type { WebSocketConstructor } from "./transport/bridge.ts";
export type { Observable, Disposer } from "./util/observable.ts";
export { systemTimers, type Timers } from "./util/timers.ts";
export { randomId, randomUuid } from "./util/ids.ts";
export { copyText } from "./util/clipboard.ts";
export * from "./wire/index.ts";
export { fold, isHit, MAX_QUERY_WORDS, queryWords, tokens } from "./wire/search-words.ts";
