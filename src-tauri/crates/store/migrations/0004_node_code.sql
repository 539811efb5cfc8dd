-- Schema 4: the code state a node recorded.
-- A row exists for a node after which Arbor snapshotted the workspace and found it changed (or
-- the first snapshot of a path): the snapshot's id in the project's shadow repository and the
-- files that differ from the state of the node's nearest ancestor with a row, as JSON the
-- caller owns. A node without a row saw the state of that ancestor.
CREATE TABLE node_code (
    node_id     TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    snapshot    TEXT NOT NULL,
    files       TEXT NOT NULL,
    FOREIGN KEY (session_id, node_id) REFERENCES nodes(session_id, id) ON DELETE CASCADE
);
CREATE INDEX node_code_by_session ON node_code(session_id);
