-- Arbor store, schema 1: projects, sessions as trees of nodes, labels.
-- Forward-only: never edit a released migration; add a new numbered file instead.

PRAGMA application_id = 1095909970; -- 'ARBR': lets `open` tell an Arbor database from a foreign one

CREATE TABLE projects (
    id              TEXT PRIMARY KEY,
    root            TEXT NOT NULL UNIQUE,
    origin_url      TEXT,
    created_at      INTEGER NOT NULL,           -- unix milliseconds
    last_opened_at  INTEGER NOT NULL
);

CREATE TABLE sessions (
    id               TEXT PRIMARY KEY,
    project_id       TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    title            TEXT NOT NULL DEFAULT '',
    title_is_custom  INTEGER NOT NULL DEFAULT 0,
    leaf_id          TEXT,                      -- NULL = before the first node
    model            TEXT,
    thinking_level   TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    -- The leaf must be a node of this very session.
    FOREIGN KEY (id, leaf_id) REFERENCES nodes(session_id, id) DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX sessions_by_project_recency ON sessions(project_id, updated_at DESC);
CREATE INDEX sessions_by_recency ON sessions(updated_at DESC);

CREATE TABLE nodes (
    -- seq gives a stable rowid (insertion order) for sibling order and for the FTS index.
    seq            INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    parent_id      TEXT,                        -- NULL = a root of the session's tree
    kind           TEXT NOT NULL CHECK (kind IN ('user', 'assistant', 'tool_result', 'model_change',
                       'thinking_level_change', 'compaction', 'branch_summary', 'label')),
    role           TEXT,
    content        TEXT NOT NULL,               -- JSON, opaque to the store
    text           TEXT NOT NULL DEFAULT '',    -- plain text for search and titles
    usage          TEXT,                        -- JSON or NULL
    aborted        INTEGER NOT NULL DEFAULT 0,
    first_kept_id  TEXT,                        -- compaction only
    tokens_before  INTEGER,                     -- compaction only
    created_at     INTEGER NOT NULL,
    UNIQUE (session_id, id),
    -- A parent is always in the same session. No ON DELETE action on purpose: nodes are only
    -- deleted a whole session at a time, and a cascade along a long chain would recurse per level.
    FOREIGN KEY (session_id, parent_id) REFERENCES nodes(session_id, id),
    FOREIGN KEY (session_id, first_kept_id) REFERENCES nodes(session_id, id),
    CHECK ((kind = 'compaction') = (first_kept_id IS NOT NULL))
);
CREATE INDEX nodes_by_session_parent ON nodes(session_id, parent_id);

CREATE TABLE labels (
    node_id     TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    label       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    FOREIGN KEY (session_id, node_id) REFERENCES nodes(session_id, id) ON DELETE CASCADE
);
CREATE INDEX labels_by_session ON labels(session_id);
