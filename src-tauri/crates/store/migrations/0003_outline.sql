-- Schema 3: a covering index for the small columns of nodes.
-- A node's row holds its content and search text before the small columns, so reading
-- `parent_id`, `kind` or `usage` of every node of a long session walked each row's overflow
-- pages (tool output). The outline of a session's tree, per-node usage and per-session figures
-- now read this index alone, in insertion order (`seq`); reading whole rows of a session
-- through it visits the table in insertion order too.
CREATE INDEX nodes_outline ON nodes (session_id, seq, kind, id, parent_id, usage);
