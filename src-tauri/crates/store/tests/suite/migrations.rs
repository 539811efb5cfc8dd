//! Schema migrations: a database written by schema 1 is upgraded in place on open.

use crate::common;

use arbor_store::{SearchOptions, Store, SCHEMA_VERSION};
use rusqlite::{params, Connection};

// The upgrade test below needs a second migration to be meaningful.
const _: () = assert!(SCHEMA_VERSION >= 2);

const SCHEMA_1: &str = include_str!("../../migrations/0001_init.sql");

#[test]
fn fresh_database_is_at_the_latest_version() {
    let (_dir, store) = common::temp_store();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let conn = Connection::open(store.path()).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn upgrades_a_filled_schema_1_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(arbor_store::DB_FILE_NAME);
    // What an Arbor build at schema 1 would have written.
    {
        let c = Connection::open(&path).unwrap();
        c.execute_batch("PRAGMA foreign_keys = ON; BEGIN;").unwrap();
        c.execute_batch(SCHEMA_1).unwrap();
        c.execute_batch("PRAGMA user_version = 1; COMMIT;").unwrap();
        c.execute(
            "INSERT INTO projects VALUES ('01900000-0000-7000-8000-000000000001', '/old/project', NULL, 1, 1)",
            [],
        )
        .unwrap();
        c.execute(
            "INSERT INTO sessions (id, project_id, title, created_at, updated_at)
             VALUES ('01900000-0000-7000-8000-0000000000a1', '01900000-0000-7000-8000-000000000001',
                     'old session', 1, 5)",
            [],
        )
        .unwrap();
        let texts = [
            "refactor the parser please",
            "sure, the parser is refactored",
            "thanks",
        ];
        let mut parent: Option<String> = None;
        for (i, text) in texts.iter().enumerate() {
            let id = format!("01900000-0000-7000-8000-0000000001{i:02}");
            let kind = if i % 2 == 0 { "user" } else { "assistant" };
            c.execute(
                "INSERT INTO nodes (id, session_id, parent_id, kind, role, content, text, created_at)
                 VALUES (?1, '01900000-0000-7000-8000-0000000000a1', ?2, ?3, ?3, ?4, ?5, ?6)",
                params![id, parent, kind, serde_json::json!({"text": text}).to_string(), text, i as i64 + 2],
            )
            .unwrap();
            parent = Some(id);
        }
        c.execute(
            "UPDATE sessions SET leaf_id = ?1 WHERE id = '01900000-0000-7000-8000-0000000000a1'",
            [parent],
        )
        .unwrap();
    }

    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert!(store.check_integrity().unwrap().is_empty());

    // Old rows are intact and usable.
    let session = store
        .get_session("01900000-0000-7000-8000-0000000000a1")
        .unwrap();
    assert_eq!(session.title, "old session");
    let ctx = store.context(&session.id).unwrap();
    assert_eq!(
        common::texts(&ctx),
        [
            "refactor the parser please",
            "sure, the parser is refactored",
            "thanks"
        ]
    );
    // Schema 2's search index covers rows written before it existed…
    let hits = store.search("parser", &SearchOptions::default()).unwrap();
    assert_eq!(hits.len(), 2);
    // …and new ones.
    common::user(&store, &session.id, "one more parser question");
    assert_eq!(
        store
            .search("parser", &SearchOptions::default())
            .unwrap()
            .len(),
        3
    );

    // Reopening is a no-op.
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
}

#[test]
fn refuses_a_database_from_a_newer_arbor() {
    let (dir, store) = common::temp_store();
    let path = store.path().to_path_buf();
    drop(store);
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    let err = Store::open(dir.path()).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, arbor_store::StoreError::SchemaTooNew { .. }),
        "{msg}"
    );
    assert!(msg.contains("upgrade Arbor"), "{msg}");
}
