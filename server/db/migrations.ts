// Schema of the server's SQLite file. Append-only: a shipped migration is never edited, a new one is added.
export const migrations: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;

  -- The event log. AUTOINCREMENT: ids are never reused, even after pruning the newest rows' predecessors.
  CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    type TEXT NOT NULL,
    session_id TEXT,
    request_id TEXT,
    created_at INTEGER NOT NULL,
    body TEXT NOT NULL
  ) STRICT;
  CREATE INDEX events_by_session ON events (session_id, id) WHERE session_id IS NOT NULL;
  CREATE INDEX events_by_request ON events (request_id, id) WHERE request_id IS NOT NULL;

  -- A session row points at its newest immutable version.
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    head_version INTEGER NOT NULL,
    cursor_event_id INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE session_versions (
    session_id TEXT NOT NULL REFERENCES sessions (id),
    version INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, version)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE devices (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER,
    revoked_at INTEGER
  ) STRICT;
  `,
  // Application notifications (docs/notifications.md). `active` is 1 until the record reaches a terminal
  // state; the partial unique index makes "one active occurrence per key" a database fact. `terminal_seq`
  // numbers records in the order they became terminal, contiguously, so pruning the oldest terminal records
  // is an index range delete whose cost never depends on the number of active records.
  `
  CREATE TABLE application_notifications (
    id TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    active INTEGER NOT NULL,
    request_id TEXT,
    retention_policy TEXT NOT NULL,
    terminal_seq INTEGER,
    body TEXT NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX application_notifications_active_key ON application_notifications (key) WHERE active = 1;
  CREATE INDEX application_notifications_by_active ON application_notifications (active);
  CREATE UNIQUE INDEX application_notifications_terminal ON application_notifications (terminal_seq) WHERE terminal_seq IS NOT NULL;
  CREATE INDEX application_notifications_active_request ON application_notifications (request_id) WHERE active = 1 AND request_id IS NOT NULL;
  CREATE INDEX application_notifications_active_policy ON application_notifications (retention_policy) WHERE active = 1;
  `,
  `
  -- Pairing codes (server/pairing): only the SHA-256 of the normalised code is kept; single use, expiring.
  CREATE TABLE pairing_codes (
    code_hash TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  ) STRICT;
  `,
  `
  -- Session-owned uploaded attachments (server/assets, docs/runner.md "Attachments"). The bytes live in
  -- DATA_DIR/assets/<session_id>/<id>; this row is the authority on ownership, media type and size.
  CREATE TABLE assets (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    media_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    filename TEXT,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX assets_by_session ON assets (session_id);
  `,
  `
  -- Requests in flight (server/runner/recovery.ts, docs/runner.md "Crash recovery"). A row is written in the
  -- transaction of the request's request_started and deleted in the transaction of its request_completed, so
  -- a row that survives a start names a request a crash cut off. The backfill finds those of an older log.
  CREATE TABLE active_requests (
    request_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    started_at INTEGER NOT NULL
  ) STRICT;
  INSERT OR IGNORE INTO active_requests (request_id, session_id, started_at)
    SELECT s.request_id, s.session_id, s.created_at FROM events s
    WHERE s.type = 'request_started' AND s.request_id IS NOT NULL AND s.session_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM events c WHERE c.request_id = s.request_id AND c.type = 'request_completed');
  `,
];
