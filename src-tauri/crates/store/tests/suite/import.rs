//! Importing a whole session in one transaction: everything is kept (structure, labels, leaf,
//! timestamps), ids inside contents are remapped, and a failure anywhere leaves nothing behind.

use crate::common;

use arbor_store::{ImportedNode, ImportedSession, NodeKind, SearchOptions, StoreError};
use common::{project, row_counts, sample_import, sample_labels, temp_store};
use serde_json::{json, Value};

#[test]
fn import_keeps_structure_labels_leaf_and_timestamps() {
    let (dir, store) = temp_store();
    let p = project(&store, &dir, "proj");
    let input = sample_import(300);
    let s = store.import_session(&p.id, input.clone()).unwrap();
    assert_eq!(s.project_id, p.id);
    assert_eq!(s.title, "Imported");
    assert!(s.title_is_custom);
    assert_eq!(s.model.as_deref(), Some("test-model"));
    assert_eq!(s.thinking_level.as_deref(), Some("high"));
    assert_eq!(
        (s.created_at, s.updated_at),
        (1_500_000_000_000, 1_700_000_000_000)
    );

    let tree = store.session_tree(&s.id).unwrap();
    assert_eq!(tree.nodes.len(), 300);
    // Tree order is import order; map every new id back to its index.
    let index: std::collections::HashMap<&str, usize> = tree
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    for (i, (n, want)) in tree.nodes.iter().zip(&input.nodes).enumerate() {
        assert_eq!(n.kind, want.kind, "node {i}");
        assert_eq!(n.created_at, want.created_at, "node {i}");
        assert_eq!(n.label, want.label, "node {i}");
        assert_eq!(
            n.parent_id.as_deref().map(|p| index[p]),
            want.parent,
            "node {i}"
        );
        assert_eq!(n.is_leaf, i == 299, "node {i}");
    }
    assert_eq!(s.leaf_id.as_deref(), Some(tree.nodes[299].id.as_str()));

    // Contents, usage and compactions come back with new ids wherever old ones were.
    let nodes: Vec<_> = tree
        .nodes
        .iter()
        .map(|t| store.get_node(&t.id).unwrap())
        .collect();
    let mut compactions = 0;
    for (i, (n, want)) in nodes.iter().zip(&input.nodes).enumerate() {
        let content: Value = n.content_value().unwrap();
        assert_eq!(n.text, want.text);
        assert_eq!(n.usage_value().unwrap(), want.usage);
        assert_eq!(n.tokens_before, want.tokens_before);
        assert_eq!(n.role, want.role);
        if n.kind == NodeKind::Compaction {
            compactions += 1;
            let kept = n.first_kept_id.as_deref().unwrap();
            assert_eq!(Some(index[kept]), want.first_kept, "node {i}");
            assert_eq!(content["first_kept_id"], kept);
        } else {
            let previous = n.parent_id.as_deref().map_or(Value::Null, |p| json!(p));
            assert_eq!(content["previous"], previous, "node {i}");
        }
    }
    assert_eq!(compactions, 3);

    // The context rule applies to the imported compactions; search finds imported text.
    let context = store.context(&s.id).unwrap();
    assert_eq!(context[0].kind, NodeKind::Compaction);
    let hits = store
        .search("message123", &SearchOptions::default())
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].session_id, s.id);
    assert_eq!(store.check_integrity().unwrap(), Vec::<String>::new());
    assert_eq!(row_counts(&store), [1, 300, sample_labels(300) as i64, 300]);
}

#[test]
fn an_automatic_title_comes_from_the_first_user_prompt() {
    let (dir, store) = temp_store();
    let p = project(&store, &dir, "proj");
    let mut change = ImportedNode::new(NodeKind::ModelChange, json!({"model": "m"}), "m", 5);
    change.role = None;
    let mut prompt = ImportedNode::new(
        NodeKind::User,
        json!({"text": "x"}),
        "\n  Fix the parser\nplease",
        6,
    );
    prompt.parent = Some(0);
    let s = store
        .import_session(
            &p.id,
            ImportedSession {
                nodes: vec![change, prompt],
                leaf: None,
                created_at: 5,
                updated_at: 6,
                ..ImportedSession::default()
            },
        )
        .unwrap();
    assert_eq!(s.title, "Fix the parser");
    assert!(!s.title_is_custom);
    assert_eq!(s.leaf_id, None);

    let empty = store
        .import_session(&p.id, ImportedSession::default())
        .unwrap();
    assert_eq!((empty.title.as_str(), empty.leaf_id), ("", None));
    assert!(store.context(&empty.id).unwrap().is_empty());
}

#[test]
fn invalid_imports_write_nothing() {
    let (dir, store) = temp_store();
    let p = project(&store, &dir, "proj");
    let before = row_counts(&store);

    // A parent that comes later, in the middle of the session.
    let mut input = sample_import(200);
    input.nodes[120].parent = Some(150);
    let e = store.import_session(&p.id, input).unwrap_err();
    assert!(
        matches!(e, StoreError::InvalidImport { index: 120, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("nothing was imported"), "{e}");

    // A compaction that keeps from another branch: the first compaction is node 96, whose
    // path runs 95 … 50 and then 40 … 0 (node 50 hangs off node 40), so 45 is not on it.
    let mut input = sample_import(200);
    let compaction = input
        .nodes
        .iter()
        .position(|n| n.kind == NodeKind::Compaction)
        .unwrap();
    assert_eq!(compaction, 96);
    input.nodes[compaction].first_kept = Some(45);
    let e = store.import_session(&p.id, input).unwrap_err();
    assert!(
        matches!(e, StoreError::InvalidImport { index, .. } if index == compaction),
        "{e}"
    );

    // A leaf out of range; an unknown project.
    let mut input = sample_import(10);
    input.leaf = Some(10);
    assert!(matches!(
        store.import_session(&p.id, input),
        Err(StoreError::InvalidInput(_))
    ));
    let e = store
        .import_session("0190ffff-0000-7000-8000-000000000000", sample_import(10))
        .unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::NotFound {
                kind: "project",
                ..
            }
        ),
        "{e}"
    );

    assert_eq!(row_counts(&store), before);
    assert_eq!(store.check_integrity().unwrap(), Vec::<String>::new());
}

#[test]
fn a_failure_in_the_middle_of_the_writes_rolls_everything_back() {
    let (dir, store) = temp_store();
    let p = project(&store, &dir, "proj");
    store.import_session(&p.id, sample_import(20)).unwrap();
    let before = row_counts(&store);

    // Make SQLite itself refuse one node in the middle, after 150 nodes, their labels and
    // search entries have been written in the same transaction.
    let c = rusqlite::Connection::open(store.path()).unwrap();
    c.execute_batch(
        "CREATE TRIGGER poison BEFORE INSERT ON nodes WHEN NEW.text = 'poison'
         BEGIN SELECT RAISE(ABORT, 'poisoned node'); END;",
    )
    .unwrap();
    let mut input = sample_import(300);
    input.nodes[150].text = "poison".into();
    let e = store.import_session(&p.id, input.clone()).unwrap_err();
    assert!(e.to_string().contains("poisoned node"), "{e}");
    assert_eq!(
        row_counts(&store),
        before,
        "no session, node, label or FTS row"
    );
    assert_eq!(store.check_integrity().unwrap(), Vec::<String>::new());

    // The connection is fine afterwards, and the same import goes through without the trap.
    c.execute_batch("DROP TRIGGER poison").unwrap();
    let s = store.import_session(&p.id, input).unwrap();
    assert_eq!(store.session_tree(&s.id).unwrap().nodes.len(), 300);
    assert_eq!(row_counts(&store)[1], before[1] + 300);
}
