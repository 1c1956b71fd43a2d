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
  `
  -- Structural sharing of sessions (server/sessions/message-log.ts, docs/events.md "Storage"). Each message body is
  -- stored once in message_bodies; session_messages says which body sits at which position of a session for
  -- which versions: from_version up to (not including) to_version, NULL while it is in the head. An append adds
  -- one row, a modify closes one and adds one, so a version costs what it changed, not the session's size. A
  -- session_versions body keeps the session's other fields with "messages": [] in the place of the list.
  -- An event whose session (and message) is a stored version keeps only the version number and the message's
  -- index in its body; list() puts the full session back (the wire is unchanged).
  CREATE TABLE message_bodies (
    id INTEGER PRIMARY KEY,
    body TEXT NOT NULL
  ) STRICT;
  CREATE TABLE session_messages (
    session_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    from_version INTEGER NOT NULL,
    to_version INTEGER,
    message_id INTEGER NOT NULL REFERENCES message_bodies (id),
    PRIMARY KEY (session_id, position, from_version)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX session_messages_head ON session_messages (session_id, position, message_id) WHERE to_version IS NULL;
  ALTER TABLE events ADD COLUMN session_version INTEGER;
  ALTER TABLE events ADD COLUMN message_index INTEGER;

  -- Existing versions: every message of every version, by position; equal bodies become one row.
  CREATE TEMP TABLE old_items AS
    SELECT v.session_id AS session_id, v.version AS version, CAST(j.key AS INTEGER) AS position, j.value AS body
    FROM session_versions v, json_each(v.body, '$.messages') j;
  CREATE TEMP TABLE distinct_bodies (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE);
  INSERT OR IGNORE INTO distinct_bodies (body) SELECT body FROM old_items ORDER BY session_id, version, position;
  INSERT INTO message_bodies (id, body) SELECT id, body FROM distinct_bodies;
  -- Consecutive versions holding the same body at one position become one row (gaps and islands).
  INSERT INTO session_messages (session_id, position, from_version, to_version, message_id)
    SELECT i.session_id, i.position, min(i.version),
      CASE WHEN max(i.version) = s.head_version THEN NULL ELSE max(i.version) + 1 END, i.message_id
    FROM (
      SELECT o.session_id, o.position, o.version, b.id AS message_id,
        o.version - row_number() OVER (PARTITION BY o.session_id, o.position, b.id ORDER BY o.version) AS island
      FROM old_items o JOIN distinct_bodies b ON b.body = o.body
    ) i JOIN sessions s ON s.id = i.session_id
    GROUP BY i.session_id, i.position, i.message_id, i.island;
  UPDATE session_versions SET body = json_set(body, '$.messages', json('[]'));
  DROP TABLE temp.old_items;
  DROP TABLE temp.distinct_bodies;
  `,
  // 7: end-to-end encryption (docs/security.md). A device's X25519 public key (NULL: a plain device, paired without
  // one); the content keys events are sealed with, a new one on every revocation.
  `
  ALTER TABLE devices ADD COLUMN public_key TEXT;
  -- The newest time a sealed relayed call of the device carried (its clock): older ones are refused after a restart.
  ALTER TABLE devices ADD COLUMN relay_floor INTEGER;
  CREATE TABLE content_keys (
    key_id INTEGER PRIMARY KEY,
    key BLOB NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  `,
  // 8: Web Push (docs/push.md). A browser's subscription belongs to the device that registered it and goes with it
  // when the device is revoked; `preview` is the device's choice to receive text in its pushes (off by default).
  `
  CREATE TABLE push_subscriptions (
    endpoint TEXT PRIMARY KEY,
    device_id TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX push_subscriptions_by_device ON push_subscriptions (device_id);
  CREATE TABLE push_device_settings (
    device_id TEXT PRIMARY KEY,
    preview INTEGER NOT NULL
  ) STRICT;
  `,
  // 9: deleting sessions (docs/sessions.md "Delete"). A deleted session keeps its row, marked, so forks still find the
  // sessions they came from (their attachments' owners); its versions, messages and events' bodies are gone.
  // source_session_id mirrors the first version's field, so lineage and descendants are index lookups.
  `
  ALTER TABLE sessions ADD COLUMN deleted_at INTEGER;
  ALTER TABLE sessions ADD COLUMN source_session_id TEXT;
  UPDATE sessions SET source_session_id = (
    SELECT json_extract(v.body, '$.source_session_id') FROM session_versions v WHERE v.session_id = sessions.id AND v.version = 1
  );
  CREATE INDEX sessions_by_source ON sessions (source_session_id) WHERE source_session_id IS NOT NULL;
  CREATE INDEX session_messages_by_body ON session_messages (message_id);
  `,
  // 10: search (server/search, docs/search.md). search_docs has one row per indexed message (message_index >= 0) or
  // session title (message_index -1), with a digest of its text to notice changes; search_fts is a contentless FTS5
  // index whose rowids are search_docs ids: the text itself stays where the session keeps it, stored once.
  // search_sessions holds what a result shows of its session. The indexer's cursor is meta "search_cursor".
  `
  CREATE TABLE search_docs (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    message_index INTEGER NOT NULL,
    digest TEXT NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX search_docs_by_message ON search_docs (session_id, message_index);
  CREATE VIRTUAL TABLE search_fts USING fts5(
    text, content = '', contentless_delete = 1, prefix = '2 3', tokenize = 'unicode61 remove_diacritics 2'
  );
  CREATE TABLE search_sessions (
    session_id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    archived INTEGER NOT NULL
  ) STRICT;
  `,
  // 11: producer tokens (server/producers, docs/notifications.md "Producers"): a named token that may only publish and
  // resolve notifications. Only the token's SHA-256 is kept; revoking deletes the row.
  `
  CREATE TABLE producers (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  ) STRICT;
  `,
  // 12: imports (server/export, docs/export.md "Import"): which chat each imported session came from, so a chat is
  // imported once (source_id) and a fork finds the session its source became (original_id: its id where it came from).
  `
  CREATE TABLE imported_chats (
    source_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    original_id TEXT,
    imported_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX imported_chats_by_session ON imported_chats (session_id);
  CREATE INDEX imported_chats_by_original ON imported_chats (original_id) WHERE original_id IS NOT NULL;
  `,
  // 13: documents (server/documents, docs/documents.md): a person's library (the file's text by page or section) and each
  // chat's own copy of the documents attached in it, with the chunks retrieval ranks (an FTS5 table folding as chat
  // search does). Deleting a document removes its library rows; a chat's copy goes with the chat.
  `
  CREATE TABLE documents (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    media_type TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX documents_by_owner ON documents (owner, created_at);
  CREATE TABLE document_pages (
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    page INTEGER NOT NULL,
    heading TEXT,
    text TEXT NOT NULL,
    PRIMARY KEY (document_id, page)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE chat_documents (
    session_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    name TEXT NOT NULL,
    media_type TEXT NOT NULL,
    pages INTEGER NOT NULL,
    attached_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, document_id)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE chat_document_pages (
    session_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    page INTEGER NOT NULL,
    heading TEXT,
    text TEXT NOT NULL,
    PRIMARY KEY (session_id, document_id, page)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE chat_document_chunks (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    page INTEGER NOT NULL,
    text TEXT NOT NULL
  ) STRICT;
  CREATE INDEX chat_document_chunks_by_session ON chat_document_chunks (session_id, document_id);
  CREATE VIRTUAL TABLE chat_document_fts USING fts5(
    text, content = 'chat_document_chunks', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
  );
  `,
  // 14: people (server/people, docs/people.md). Every device, chat, producer token and push subscription belongs to a
  // person; a chat's audience is its owner plus its shares. An existing data folder gets one admin person, "Owner",
  // who owns everything there is (a fresh one gets the same Owner, owning nothing yet). `agents` is JSON: "*" or an
  // array of agent ids. The owner's pinned/archived stay in the session body; a share row keeps the sharer's own.
  // An event's `audience` (JSON array of person ids) names who may read it when it is not simply "whoever may see its
  // session" (NULL: a session event follows its session, an event of no session is everyone's).
  `
  CREATE TABLE people (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    agents TEXT NOT NULL,
    max_requests_per_day INTEGER,
    created_at INTEGER NOT NULL,
    removed_at INTEGER
  ) STRICT;
  INSERT INTO people (id, name, role, agents, created_at)
    VALUES ('per_' || lower(hex(randomblob(8))), 'Owner', 'admin', '"*"', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));

  ALTER TABLE devices ADD COLUMN person_id TEXT;
  UPDATE devices SET person_id = (SELECT id FROM people);
  CREATE INDEX devices_by_person ON devices (person_id);
  ALTER TABLE pairing_codes ADD COLUMN person_id TEXT;
  UPDATE pairing_codes SET person_id = (SELECT id FROM people);

  ALTER TABLE sessions ADD COLUMN owner_id TEXT;
  UPDATE sessions SET owner_id = (SELECT id FROM people);
  CREATE INDEX sessions_by_owner ON sessions (owner_id, id);
  CREATE TABLE session_shares (
    session_id TEXT NOT NULL,
    person_id TEXT NOT NULL,
    access TEXT NOT NULL CHECK (access IN ('read', 'write')),
    pinned INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, person_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX session_shares_by_person ON session_shares (person_id, session_id);

  ALTER TABLE producers ADD COLUMN person_id TEXT;
  UPDATE producers SET person_id = (SELECT id FROM people);
  UPDATE documents SET owner = (SELECT id FROM people);

  ALTER TABLE push_subscriptions ADD COLUMN person_id TEXT;
  UPDATE push_subscriptions SET person_id = (SELECT id FROM people);

  ALTER TABLE application_notifications ADD COLUMN audience TEXT;
  CREATE TABLE notification_dismissals (
    notification_id TEXT NOT NULL,
    person_id TEXT NOT NULL,
    dismissed_at INTEGER NOT NULL,
    PRIMARY KEY (notification_id, person_id)
  ) STRICT, WITHOUT ROWID;

  ALTER TABLE events ADD COLUMN audience TEXT;

  CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    person_id TEXT,
    session_id TEXT
  ) STRICT;
  CREATE INDEX audit_log_by_time ON audit_log (at);

  CREATE TABLE daily_requests (
    person_id TEXT NOT NULL,
    day INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (person_id, day)
  ) STRICT, WITHOUT ROWID;
  `,
  // 15: content keys per person (server/e2e/content-keys.ts, docs/security.md "Keys and their lifecycle"): each key seals one
  // scope's events, a person's (their id) or everyone's (the server-wide key, `*`). The keys an existing data folder
  // has become the oldest person's (Owner, made by 14), with the same ids, so an end-to-end device's stored keys keep
  // opening what they opened.
  `
  ALTER TABLE content_keys ADD COLUMN scope TEXT;
  UPDATE content_keys SET scope = (SELECT id FROM people ORDER BY created_at, rowid LIMIT 1);
  CREATE INDEX content_keys_by_scope ON content_keys (scope, key_id);
  `,
  // 16: personal settings and prompts (server/personal, docs/settings.md "Personal"), each row a person's own:
  // person_id is the caller's person (http/caller-person.ts). Kept last: a migration written beside it on another
  // branch goes before it, and this one takes the next number.
  `
  CREATE TABLE personal_settings (
    person_id TEXT PRIMARY KEY,
    instructions TEXT NOT NULL,
    default_agent TEXT,
    default_model TEXT
  ) STRICT;
  CREATE TABLE prompts (
    id TEXT PRIMARY KEY,
    person_id TEXT NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX prompts_by_person ON prompts (person_id, title COLLATE NOCASE);
  `,
  // 17: client ids (server/runner/client-request-ids.ts): a send's client_request_id and a new chat's
  // client_session_id, kept as long as their chat, so a retry hours later (an outbox) answers the first result.
  `
  CREATE TABLE client_requests (
    session_id TEXT NOT NULL,
    client_request_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    PRIMARY KEY (session_id, client_request_id)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE client_sessions (
    person_id TEXT NOT NULL,
    client_session_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    PRIMARY KEY (person_id, client_session_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX client_sessions_by_session ON client_sessions (session_id);
  `,
  // 18: the chat list read in SQL (server/sessions/session-list.ts, docs/sessions.md "History in pages"). The head's
  // list keys and its summary as the list shows it (title, message count, ...) are kept on the session row by every
  // save, so a page is an index range of one person's rows: no version or message is read. updated_at is the head's
  // ISO time (what the list orders by and the cursor names); pinned and archived are the owner's (a share holder's are
  // on their share row). summary is NULL for a deleted chat; rows written before this migration are filled in once
  // by the store when it opens (SessionList.backfill), since the derived title needs the first user message.
  `
  ALTER TABLE sessions ADD COLUMN updated_at TEXT;
  ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN summary TEXT;
  CREATE INDEX sessions_list ON sessions (owner_id, archived, pinned DESC, updated_at DESC, id DESC)
    WHERE deleted_at IS NULL;
  `,
  // 19: share links (server/sharing, docs/people.md "Share links"): each row a link's sealed snapshot (the key is in
  // the link only) and the owner who made it; a link is live while it has not expired, its chat is not deleted and
  // the chat's owner is still that person (a transfer or a removal ends it).
  `
  CREATE TABLE share_links (
    token TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    blob TEXT NOT NULL
  ) STRICT;
  CREATE INDEX share_links_by_session ON share_links (session_id, created_at);
  `,
  // 20: document vectors (server/documents, docs/documents.md "Hybrid retrieval"): a library document's chunks embedded
  // by each model agents name, keyed by page and the chunk's place in it (chunks never span pages), and a chat's copy
  // of them keyed by its chunk's row. Unit Float32 vectors as BLOBs. They go with the document and with the chat.
  `
  CREATE TABLE document_vectors (
    document_id TEXT NOT NULL,
    model TEXT NOT NULL,
    page INTEGER NOT NULL,
    part INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (document_id, model, page, part)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE chat_document_vectors (
    session_id TEXT NOT NULL,
    model TEXT NOT NULL,
    chunk_id INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (session_id, model, chunk_id)
  ) STRICT, WITHOUT ROWID;
  `,
  // 21: search read per person (server/search/person-words.ts, docs/search.md "One index, read per person"): each
  // word of a row is written once for every person who may see its chat, their 8-character tag before it, so the
  // prefix indexes move from 2 and 3 characters to 10 and 11 (the tag and the word's first 2 or 3). The old index
  // holds untagged words no query asks for any more: it is dropped, and the missing cursor makes the indexer rebuild
  // it from the stored sessions at the first start.
  `
  DROP TABLE search_fts;
  CREATE VIRTUAL TABLE search_fts USING fts5(
    text, content = '', contentless_delete = 1, prefix = '10 11', tokenize = 'unicode61 remove_diacritics 2'
  );
  DELETE FROM search_docs;
  DELETE FROM search_sessions;
  DELETE FROM meta WHERE key = 'search_cursor';
  `,
];
