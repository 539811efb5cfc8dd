//! Bad input and bad surroundings: ids, prefixes, foreign or corrupt files, unusable folders.

use crate::common;

use std::os::unix::fs::PermissionsExt;

use arbor_store::{NodeKind, Store, StoreError};
use common::{msg, session, temp_store, user};

fn common_prefix(a: &str, b: &str) -> String {
    a.chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

#[test]
fn id_prefixes_resolve_when_unique() {
    let (dir, store) = temp_store();
    let (p, s1) = session(&store, &dir);
    let s2 = store.create_session(&p.id, None, None).unwrap();
    assert_eq!(store.resolve_session_id(&s1.id).unwrap(), s1.id);
    assert_eq!(store.resolve_session_id(&s1.id[..35]).unwrap(), s1.id);
    assert_eq!(store.get_session(&s2.id.to_uppercase()).unwrap().id, s2.id);

    let shared = common_prefix(&s1.id, &s2.id);
    assert!(
        !shared.is_empty(),
        "v7 ids made together share their time prefix"
    );
    let err = store.resolve_session_id(&shared).unwrap_err();
    match &err {
        StoreError::AmbiguousId { candidates, .. } => {
            assert!(candidates.contains(&s1.id) && candidates.contains(&s2.id));
        }
        other => panic!("expected AmbiguousId, got {other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains(&s1.id) && text.contains(&s2.id) && text.contains("more characters"),
        "{text}"
    );

    let n1 = user(&store, &s1.id, "a");
    let n2 = user(&store, &s1.id, "b");
    assert_eq!(store.resolve_node_id(&s1.id, &n1.id[..35]).unwrap(), n1.id);
    let shared = common_prefix(&n1.id, &n2.id);
    assert!(matches!(
        store.resolve_node_id(&s1.id, &shared),
        Err(StoreError::AmbiguousId { .. })
    ));
    // Operations take prefixes too.
    store.set_leaf(&s1.id[..35], Some(&n1.id[..35])).unwrap();
    assert_eq!(store.get_session(&s1.id).unwrap().leaf_id, Some(n1.id));
}

#[test]
fn unknown_and_malformed_ids_are_clear_errors() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let unknown = "ffffffff-ffff-7fff-bfff-ffffffffffff";
    let e = store.get_session(unknown).unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::NotFound {
                kind: "session",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains(unknown), "{e}");
    assert!(e.to_string().contains("arbor sessions"), "{e}");

    for bad in [
        "",
        "   ",
        "xyz",
        "0190'; DROP TABLE sessions; --",
        "%",
        "_",
        "0190%",
        "ф",
    ] {
        let e = store.get_session(bad).unwrap_err();
        assert!(matches!(e, StoreError::InvalidId { .. }), "{bad:?}: {e:?}");
    }
    let too_long = format!("{}0", s.id);
    assert!(matches!(
        store.get_session(&too_long),
        Err(StoreError::InvalidId { .. })
    ));

    assert!(matches!(
        store.append(unknown, msg(NodeKind::User, "x")),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.create_session(unknown, None, None),
        Err(StoreError::NotFound {
            kind: "project",
            ..
        })
    ));
    assert!(matches!(
        store.set_leaf(&s.id, Some(unknown)),
        Err(StoreError::NotFound { kind: "node", .. })
    ));
    assert!(matches!(
        store.append(&s.id, msg(NodeKind::User, "x").with_parent(unknown)),
        Err(StoreError::NotFound { kind: "node", .. })
    ));
    // The database still works and nothing half-done was left behind.
    assert!(store.session_tree(&s.id).unwrap().nodes.is_empty());
    assert!(store.check_integrity().unwrap().is_empty());
}

#[test]
fn nodes_of_another_session_are_refused() {
    let (dir, store) = temp_store();
    let (p, s1) = session(&store, &dir);
    let s2 = store.create_session(&p.id, None, None).unwrap();
    let n2 = user(&store, &s2.id, "in s2");
    let e = store.set_leaf(&s1.id, Some(&n2.id)).unwrap_err();
    assert!(matches!(e, StoreError::NodeNotInSession { .. }), "{e:?}");
    assert!(
        e.to_string().contains(&n2.id) && e.to_string().contains(&s1.id),
        "{e}"
    );
    assert!(matches!(
        store.append(&s1.id, msg(NodeKind::User, "x").with_parent(&n2.id)),
        Err(StoreError::NodeNotInSession { .. })
    ));
    assert!(matches!(
        store.set_label(&s1.id, &n2.id, Some("l")),
        Err(StoreError::NodeNotInSession { .. })
    ));
    assert!(matches!(
        store.fork_session(&s1.id, Some(&n2.id)),
        Err(StoreError::NodeNotInSession { .. })
    ));
    assert!(matches!(
        store.context_at(&s1.id, &n2.id),
        Err(StoreError::NodeNotInSession { .. })
    ));
}

#[test]
fn a_corrupt_file_is_not_an_arbor_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(arbor_store::DB_FILE_NAME);
    let junk: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
    std::fs::write(&path, &junk).unwrap();
    let e = Store::open(dir.path()).unwrap_err();
    assert!(matches!(e, StoreError::NotArborDatabase { .. }), "{e:?}");
    assert!(e.to_string().contains(&path.display().to_string()), "{e}");
    assert!(e.to_string().contains("not an Arbor database"), "{e}");
    // Untouched.
    assert_eq!(std::fs::read(&path).unwrap(), junk);
}

#[test]
fn another_programs_sqlite_file_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);")
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let e = Store::open_file(&path).unwrap_err();
    assert!(matches!(e, StoreError::NotArborDatabase { .. }), "{e:?}");
    assert!(e.to_string().contains("other.db"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(!dir.path().join("other.db-wal").exists());
}

#[test]
fn an_empty_file_becomes_a_database() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(arbor_store::DB_FILE_NAME), b"").unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.schema_version().unwrap(), arbor_store::SCHEMA_VERSION);
}

#[test]
fn a_data_folder_that_is_a_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, b"x").unwrap();
    let e = Store::open(&file).unwrap_err();
    assert!(matches!(e, StoreError::DataDir { .. }), "{e:?}");
    assert!(e.to_string().contains(&file.display().to_string()), "{e}");
    assert!(e.to_string().contains("--data-dir"), "{e}");
    // A folder below a file cannot be created either.
    let below = file.join("sub");
    let e = Store::open(&below).unwrap_err();
    assert!(e.to_string().contains(&below.display().to_string()), "{e}");
}

/// Whether permission bits are enforced for this process (they are not for root).
fn permissions_enforced(dir: &std::path::Path) -> bool {
    let probe = dir.join("ro-probe");
    std::fs::create_dir(&probe).unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o555)).unwrap();
    let enforced = std::fs::write(probe.join("x"), b"x").is_err();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).unwrap();
    enforced
}

/// The real check: a data folder the process cannot write is refused, naming the folder.
fn check_read_only_folders(base: &std::path::Path) {
    // A fresh data folder inside a read-only parent.
    let ro = base.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let e = Store::open(&ro.join("data")).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains(&ro.join("data").display().to_string()),
        "{e}"
    );
    // The folder itself read-only.
    let e = Store::open(&ro).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e:?}");
    assert!(e.to_string().contains(&ro.display().to_string()), "{e}");
    // An existing database whose folder became read-only.
    let rw = base.join("rw");
    drop(Store::open(&rw).unwrap());
    std::fs::set_permissions(&rw, std::fs::Permissions::from_mode(0o555)).unwrap();
    let e = Store::open(&rw).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e:?}");
    assert!(e.to_string().contains("read-only"), "{e}");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&rw, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Child half of the root case below: runs the check as an unprivileged user.
#[test]
#[ignore = "child process of `a_read_only_data_folder_is_named_in_the_error`; started by it"]
fn read_only_child() {
    let base = common::child_argument("ARBOR_STORE_RO_CHILD");
    check_read_only_folders(std::path::Path::new(&base));
}

#[test]
fn a_read_only_data_folder_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    if permissions_enforced(dir.path()) {
        check_read_only_folders(dir.path());
        return;
    }
    // Running as root, where chmod 555 does not stop us: run the same check in a copy of this
    // test binary as user `nobody` (via util-linux `setpriv`), so it can really fail.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = dir.path().join("errors-test");
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o777)).unwrap();
    let output = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&exe)
        .args([
            "--exact",
            "errors::read_only_child",
            "--ignored",
            "--test-threads=1",
        ])
        .env("ARBOR_STORE_RO_CHILD", &work)
        .output()
        .unwrap_or_else(|e| {
            panic!("need setpriv (util-linux) to test a read-only folder as root: {e}")
        });
    assert!(
        output.status.success(),
        "read-only check as nobody failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn bad_node_input_is_refused() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let e = store
        .append(&s.id, arbor_store::NewNode::compaction("s", "nonsense!", 1))
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidId { .. }), "{e:?}");
    // A compaction as the very first node keeps nothing on its (empty) path.
    let u = user(&store, &s.id, "u");
    store.set_leaf(&s.id, None).unwrap();
    let e = store
        .append(&s.id, arbor_store::NewNode::compaction("s", &u.id, 1))
        .unwrap_err();
    assert!(matches!(e, StoreError::InvalidInput(_)), "{e:?}");
    // Odd but valid text is stored as is.
    let weird = "nul \0 byte, emoji 🌳, rtl \u{202e}txet";
    let n = user(&store, &s.id, weird);
    assert_eq!(store.get_node(&n.id).unwrap().text, weird);
}

/// Damages the page holding the end of `marker` in `data/arbor.db` (its WAL folded in first).
fn damage_page_with(data: &std::path::Path, marker: &str) {
    let db = data.join("arbor.db");
    // Closing a store leaves its write-ahead log: fold it into the file first.
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    let bytes = std::fs::read(&db).unwrap();
    let needle = &marker.as_bytes()[marker.len() - 64..];
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the marker in the file");
    let page = at / 4096 * 4096;
    let mut bytes = bytes;
    bytes[page..page + 16].fill(0xff);
    std::fs::write(&db, bytes).unwrap();
}

/// A damaged database: a small one is refused at open; a large one (checked in the
/// background, so a session's first request is not held up) refuses writes once the check
/// has found the damage. Either way the error says what to do.
#[test]
fn damaged_pages_refuse_writing() {
    for (count, size) in [(4usize, 3_000usize), (12, 100_000)] {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let marker = format!("{}-END", "MARK".repeat(size / 4));
        let project = {
            let store = Store::open(&data).unwrap();
            let (p, s) = session(&store, &dir);
            for i in 0..count {
                let text = if i == count / 2 {
                    marker.clone()
                } else {
                    format!("{i} {}", "x".repeat(size))
                };
                store.append(&s.id, msg(NodeKind::User, &text)).unwrap();
            }
            p.id
        };
        damage_page_with(&data, &marker);
        let large = std::fs::metadata(data.join("arbor.db")).unwrap().len() > 512 * 1024;
        assert_eq!(large, count > 4, "the trial's database size");
        match Store::open(&data) {
            Err(error @ StoreError::Damaged { .. }) => {
                assert!(!large, "a large database is checked in the background");
                assert!(error.to_string().contains("arbor doctor"), "{error}");
            }
            Ok(store) => {
                assert!(large, "a small damaged database must be refused at open");
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
                loop {
                    match store.create_session(&project, None, None) {
                        Err(StoreError::Damaged { .. }) => break,
                        _ => {
                            assert!(std::time::Instant::now() < deadline, "never refused");
                            std::thread::sleep(std::time::Duration::from_millis(20));
                        }
                    }
                }
            }
            Err(other) => panic!("{other}"),
        }
        // Reading what can be read still works, read-only.
        let reader = Store::open_read_only(&data).unwrap();
        assert!(!reader.check_integrity().unwrap().is_empty());
    }
}

/// The check at open runs table by table: damage in an index, or in a table of the full-text
/// index, is found as surely as in a table's rows.
#[test]
fn damage_in_any_table_or_index_is_refused_at_open() {
    for object in ["nodes_by_session_parent", "nodes_fts_data", "sessions"] {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        {
            let store = Store::open(&data).unwrap();
            let (_, s) = session(&store, &dir);
            for i in 0..3 {
                user(&store, &s.id, &format!("message {i}"));
            }
        }
        let db = data.join("arbor.db");
        let root: i64 = {
            let c = rusqlite::Connection::open(&db).unwrap();
            c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
            c.query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
                [object],
                |r| r.get(0),
            )
            .unwrap()
        };
        let mut bytes = std::fs::read(&db).unwrap();
        let page = usize::try_from(root - 1).unwrap() * 4096;
        // An impossible page type and cell count in the page's header.
        bytes[page..page + 8].fill(0xff);
        std::fs::write(&db, bytes).unwrap();
        match Store::open(&data) {
            Err(StoreError::Damaged { problems, .. }) => {
                assert!(!problems.is_empty(), "{object}");
                assert!(problems.len() <= 20, "{object}: {problems:?}");
            }
            Err(other) => panic!("{object}: {other}"),
            Ok(_) => panic!("damage in {object} was not found at open"),
        }
    }
}
