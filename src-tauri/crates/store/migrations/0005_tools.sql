-- Schema 5: the model's tools — proposals and approvals pinned to a content hash, and runs.
-- An approval row is one version of one tool folder (its files as JSON, its hash) and what
-- became of it: pending → approved | rejected; approved → revoked | superseded (a newer version
-- approved). A tool is offered only while its folder's hash equals its approved row's.
CREATE TABLE tool_approvals (
    id               TEXT PRIMARY KEY,
    project_id       TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    scope            TEXT NOT NULL,
    hash             TEXT NOT NULL,
    files            TEXT NOT NULL,
    reason           TEXT NOT NULL,
    session_id       TEXT,
    status           TEXT NOT NULL,
    decision_reason  TEXT,
    created_at       INTEGER NOT NULL,
    decided_at       INTEGER
);
CREATE INDEX tool_approvals_by_name ON tool_approvals(project_id, name, created_at);

CREATE TABLE tool_runs (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    hash         TEXT NOT NULL,
    arguments    TEXT NOT NULL,
    result       TEXT NOT NULL,
    is_error     INTEGER NOT NULL,
    duration_ms  INTEGER NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX tool_runs_by_name ON tool_runs(project_id, name, created_at);
