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
];
