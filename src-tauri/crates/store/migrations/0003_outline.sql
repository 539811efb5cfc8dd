-- Schema 3: a covering index for the small columns of nodes.
-- A node's row holds its content and search text before the small columns, so reading
-- `parent_id`, `kind` or `usage` of every node of a long session walked each row's overflow
-- pages (tool output). The outline of a session's tree, per-node usage and per-session figures
-- now read this index alone (rowid = seq is in every index entry, so insertion order is too).
CREATE INDEX nodes_outline ON nodes (session_id, kind, id, parent_id, usage);
