-- Schema 10: nodes are indexed for full-text search when a search asks, not as they are stored.
-- Indexing a node as it was stored cost every stored message the FTS5 tokenizer and a new
-- index segment (3–4 more pages in the commit), and every process that stored one opened the
-- FTS5 table first: about a millisecond of each `arbor -p` run, before the answer is shown.
-- Now a stored node's `seq` goes into `nodes_fts_pending`; `Store::search` (and the integrity
-- check) first indexes what is pending, in one transaction with emptying the list.
-- A node is in exactly one of the index and the pending list: deleting or editing one that is
-- still pending must not ask FTS5 to delete an entry it never had (that damages the index).
-- Forward-only, like every migration.

CREATE TABLE nodes_fts_pending (
    seq INTEGER PRIMARY KEY
);

DROP TRIGGER nodes_fts_insert;
DROP TRIGGER nodes_fts_delete;
DROP TRIGGER nodes_fts_update;

CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts_pending(seq) VALUES (new.seq);
END;

-- One trigger each, so the test on the pending list and the change of it happen in order.
CREATE TRIGGER nodes_fts_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text)
        SELECT 'delete', old.seq, old.text
        WHERE NOT EXISTS (SELECT 1 FROM nodes_fts_pending WHERE seq = old.seq);
    DELETE FROM nodes_fts_pending WHERE seq = old.seq;
END;

CREATE TRIGGER nodes_fts_update AFTER UPDATE OF text ON nodes BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, text)
        SELECT 'delete', old.seq, old.text
        WHERE NOT EXISTS (SELECT 1 FROM nodes_fts_pending WHERE seq = old.seq);
    INSERT OR IGNORE INTO nodes_fts_pending(seq) VALUES (new.seq);
END;
