-- Schema 2: full-text search over node text.
-- External-content FTS5 table: the text lives once, in `nodes`; triggers keep the index in step.
-- Every row is indexed, empty text included, so insert and delete always pair up (FTS5 needs
-- the exact old text to delete an external-content row).

CREATE VIRTUAL TABLE nodes_fts USING fts5(
    text,
    content = 'nodes',
    content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts(rowid, text) VALUES (new.seq, new.text);
END;

CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;

-- Nodes are append-only today; this keeps the index right if a later version edits text.
CREATE TRIGGER nodes_fts_update AFTER UPDATE OF text ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text) VALUES ('delete', old.seq, old.text);
    INSERT INTO nodes_fts(rowid, text) VALUES (new.seq, new.text);
END;

-- Index what schema 1 already holds.
INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild');
