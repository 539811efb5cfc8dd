//! A new session and its first node in one transaction (`create_session_with_node`): what a
//! live session's first message writes before its request goes out.

use crate::common;

use arbor_store::{NodeKind, StoreError};
use common::{msg, project, temp_store};

#[test]
fn the_session_and_its_first_node_are_written_together() {
    let (dir, store) = temp_store();
    let p = project(&store, &dir, "proj");
    let (session, node) = store
        .create_session_with_node(
            &p.id,
            Some("anthropic/claude"),
            Some("off"),
            msg(NodeKind::User, "fix the parser\nplease"),
            false,
        )
        .unwrap();
    assert_eq!(session.project_id, p.id);
    assert_eq!(session.model.as_deref(), Some("anthropic/claude"));
    assert_eq!(session.leaf_id.as_deref(), Some(node.id.as_str()));
    assert_eq!(session.title, "fix the parser");
    assert_eq!(node.parent_id, None);
    assert_eq!(node.session_id, session.id);
    // What a reader sees is the same session, its node the leaf, nothing else.
    let stored = store.get_session(&session.id).unwrap();
    assert_eq!(stored, session);
    assert_eq!(
        store.get_node(&node.id).unwrap().text,
        "fix the parser\nplease"
    );
    assert_eq!(store.list_sessions(Some(&p.id), None).unwrap().len(), 1);
    // The next node goes under it, as after `create_session` and `append`.
    let next = store
        .append(&session.id, msg(NodeKind::Assistant, "done"))
        .unwrap();
    assert_eq!(next.parent_id.as_deref(), Some(node.id.as_str()));
}

#[test]
fn the_project_is_marked_opened_only_when_asked() {
    let (dir, store) = temp_store();
    let p = project(&store, &dir, "proj");
    let before = store.get_project(&p.id).unwrap().last_opened_at;
    std::thread::sleep(std::time::Duration::from_millis(5));
    store
        .create_session_with_node(&p.id, None, None, msg(NodeKind::User, "a"), false)
        .unwrap();
    assert_eq!(store.get_project(&p.id).unwrap().last_opened_at, before);
    store
        .create_session_with_node(&p.id, None, None, msg(NodeKind::User, "b"), true)
        .unwrap();
    assert!(store.get_project(&p.id).unwrap().last_opened_at > before);
}

#[test]
fn a_refused_first_node_leaves_no_session() {
    let (dir, store) = temp_store();
    let p = project(&store, &dir, "proj");
    // A compaction needs the node it keeps from: refused before anything is written.
    let error = store
        .create_session_with_node(&p.id, None, None, msg(NodeKind::Compaction, "x"), true)
        .unwrap_err();
    assert!(matches!(error, StoreError::InvalidInput(_)), "{error:?}");
    // An unknown project: refused inside the transaction, which leaves nothing either.
    let error = store
        .create_session_with_node(
            "no-such-project",
            None,
            None,
            msg(NodeKind::User, "x"),
            true,
        )
        .unwrap_err();
    assert!(matches!(error, StoreError::NotFound { .. }), "{error:?}");
    assert!(store.list_sessions(Some(&p.id), None).unwrap().is_empty());
    assert!(store.list_sessions(None, None).unwrap().is_empty());
}
