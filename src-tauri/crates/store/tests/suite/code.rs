//! Code state recorded with nodes (schema 4): stored with the append, found up the path, shown
//! in the tree, gone with the session.

use crate::common;

use arbor_store::{NewNode, NodeCode, NodeKind};
use common::{session, temp_store};
use serde_json::json;

fn code(snapshot: &str, files: &str) -> NodeCode {
    NodeCode {
        snapshot: snapshot.into(),
        files: files.into(),
    }
}

#[test]
fn a_node_sees_its_own_state_or_its_nearest_ancestors() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let text = |t: &str| NewNode::new(NodeKind::User, json!({"text": t}), t);
    let u1 = store
        .append(&s.id, text("q1").with_code(code("aaa", "[]")))
        .unwrap();
    let a1 = store.append(&s.id, text("a1")).unwrap();
    let t1 = store
        .append(
            &s.id,
            text("t1").with_code(code("bbb", r#"[{"path":"x"}]"#)),
        )
        .unwrap();
    let a2 = store.append(&s.id, text("a2")).unwrap();
    // A sibling branch under a1 that changed nothing.
    let b1 = store.append(&s.id, text("b1").with_parent(&a1.id)).unwrap();

    let at = |id: &str| store.code_at(id).unwrap().map(|c| (c.node_id, c.snapshot));
    assert_eq!(at(&u1.id), Some((u1.id.clone(), "aaa".into())));
    assert_eq!(at(&a1.id), Some((u1.id.clone(), "aaa".into())));
    assert_eq!(at(&t1.id), Some((t1.id.clone(), "bbb".into())));
    assert_eq!(at(&a2.id), Some((t1.id.clone(), "bbb".into())));
    assert_eq!(at(&b1.id), Some((u1.id.clone(), "aaa".into())));
    assert_eq!(
        store.node_files(&t1.id).unwrap().as_deref(),
        Some(r#"[{"path":"x"}]"#)
    );
    assert_eq!(store.node_files(&a2.id).unwrap(), None);

    let tree = store.session_tree(&s.id).unwrap();
    let files: Vec<_> = tree.nodes.iter().map(|n| n.files.as_deref()).collect();
    assert_eq!(
        files,
        [Some("[]"), None, Some(r#"[{"path":"x"}]"#), None, None]
    );

    assert!(store.code_at("no-such-node").is_err());
    store.delete_session(&s.id).unwrap();
    assert!(store.code_at(&u1.id).is_err());
}

#[test]
fn a_path_without_code_state_has_none() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let n = store
        .append(
            &s.id,
            NewNode::new(NodeKind::User, json!({"text": "q"}), "q"),
        )
        .unwrap();
    assert_eq!(store.code_at(&n.id).unwrap(), None);
}
