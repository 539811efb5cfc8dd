//! Branching, context building (with compaction), fork, labels, titles, rename, delete, listing.

use crate::common;

use arbor_store::{NewNode, NodeKind, SearchOptions, StoreError};
use common::{assistant, msg, session, temp_store, texts, user};
use serde_json::json;

#[test]
fn appends_chain_under_the_leaf_and_move_it() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    assert!(store.context(&s.id).unwrap().is_empty());
    let u1 = user(&store, &s.id, "hello");
    let a1 = assistant(&store, &s.id, "hi");
    assert_eq!(u1.parent_id, None);
    assert_eq!(a1.parent_id.as_deref(), Some(u1.id.as_str()));
    let s2 = store.get_session(&s.id).unwrap();
    assert_eq!(s2.leaf_id.as_deref(), Some(a1.id.as_str()));
    assert!(s2.updated_at >= s.updated_at);
    let ctx = store.context(&s.id).unwrap();
    assert_eq!(texts(&ctx), ["hello", "hi"]);
    // Stored content round-trips.
    assert_eq!(ctx[0].content_value().unwrap(), json!({"text": "hello"}));
    assert_eq!(ctx[0].content.get(), r#"{"text":"hello"}"#);
    assert_eq!(ctx[1].role.as_deref(), Some("assistant"));
    assert_eq!(store.get_node(&a1.id).unwrap(), a1);
}

#[test]
fn branching_keeps_both_branches() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let u1 = user(&store, &s.id, "q1");
    let a1 = assistant(&store, &s.id, "a1");
    let _u2 = user(&store, &s.id, "q2 first try");
    let _a2 = assistant(&store, &s.id, "a2 first try");
    // Edit q2: go back to a1 and send a different prompt.
    store.set_leaf(&s.id, Some(&a1.id)).unwrap();
    assert_eq!(texts(&store.context(&s.id).unwrap()), ["q1", "a1"]);
    let u2b = user(&store, &s.id, "q2 second try");
    assert_eq!(u2b.parent_id.as_deref(), Some(a1.id.as_str()));
    let a2b = assistant(&store, &s.id, "a2 second try");
    assert_eq!(
        texts(&store.context(&s.id).unwrap()),
        ["q1", "a1", "q2 second try", "a2 second try"]
    );

    // Edit the very first prompt: leaf above the root, a second root appears.
    store.set_leaf(&s.id, None).unwrap();
    assert!(store.context(&s.id).unwrap().is_empty());
    let root2 = user(&store, &s.id, "q1 again");
    assert_eq!(root2.parent_id, None);

    let tree = store.session_tree(&s.id).unwrap();
    assert_eq!(tree.nodes.len(), 7);
    assert_eq!(
        tree.nodes.iter().filter(|n| n.parent_id.is_none()).count(),
        2
    );
    let leaf: Vec<_> = tree.nodes.iter().filter(|n| n.is_leaf).collect();
    assert_eq!(leaf.len(), 1);
    assert_eq!(leaf[0].id, root2.id);
    // Parents come before children.
    for (i, n) in tree.nodes.iter().enumerate() {
        if let Some(p) = &n.parent_id {
            assert!(tree.nodes[..i].iter().any(|m| &m.id == p));
        }
    }
    // Children of a1 in insertion order.
    let kids: Vec<_> = tree
        .nodes
        .iter()
        .filter(|n| n.parent_id.as_deref() == Some(a1.id.as_str()))
        .map(|n| n.first_line.as_str())
        .collect();
    assert_eq!(kids, ["q2 first try", "q2 second try"]);

    // Back to the other branch: its context is untouched.
    store.set_leaf(&s.id, Some(&a2b.id)).unwrap();
    assert_eq!(
        texts(&store.context(&s.id).unwrap()),
        ["q1", "a1", "q2 second try", "a2 second try"]
    );
    assert_eq!(texts(&store.context_at(&s.id, &u1.id).unwrap()), ["q1"]);
}

#[test]
fn explicit_parent_appends_without_touching_other_branches() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let u1 = user(&store, &s.id, "q1");
    let _a1 = assistant(&store, &s.id, "a1");
    let side = store
        .append(
            &s.id,
            msg(NodeKind::Assistant, "regenerated a1").with_parent(&u1.id),
        )
        .unwrap();
    assert_eq!(side.parent_id.as_deref(), Some(u1.id.as_str()));
    assert_eq!(
        texts(&store.context(&s.id).unwrap()),
        ["q1", "regenerated a1"]
    );
}

#[test]
fn compaction_replaces_what_it_summarised() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let _u1 = user(&store, &s.id, "u1");
    let _a1 = assistant(&store, &s.id, "a1");
    let u2 = user(&store, &s.id, "u2");
    let _a2 = assistant(&store, &s.id, "a2");
    let c = store
        .append(&s.id, NewNode::compaction("summary of u1 a1", &u2.id, 1234))
        .unwrap();
    assert_eq!(c.first_kept_id.as_deref(), Some(u2.id.as_str()));
    assert_eq!(c.tokens_before, Some(1234));
    // The compaction is the leaf: [C, kept…].
    assert_eq!(
        texts(&store.context(&s.id).unwrap()),
        ["summary of u1 a1", "u2", "a2"]
    );
    user(&store, &s.id, "u3");
    let ctx = store.context(&s.id).unwrap();
    assert_eq!(texts(&ctx), ["summary of u1 a1", "u2", "a2", "u3"]);
    assert_eq!(ctx[0].kind, NodeKind::Compaction);
    assert_eq!(ctx[0].content_value().unwrap()["tokens_before"], 1234);

    // A second compaction supersedes the first, which sits inside its kept range.
    let a3 = assistant(&store, &s.id, "a3");
    let _c2 = store
        .append(&s.id, NewNode::compaction("summary up to u3", &a3.id, 99))
        .unwrap();
    user(&store, &s.id, "u4");
    assert_eq!(
        texts(&store.context(&s.id).unwrap()),
        ["summary up to u3", "a3", "u4"]
    );

    // The unchecked context for messages: the same nodes, the stored JSON as written, the text
    // kept only for the summary.
    let checked = store.context(&s.id).unwrap();
    let unchecked = store.context_json(&s.id).unwrap();
    assert_eq!(
        unchecked
            .iter()
            .map(|n| (&n.id, n.kind))
            .collect::<Vec<_>>(),
        checked.iter().map(|n| (&n.id, n.kind)).collect::<Vec<_>>()
    );
    assert_eq!(unchecked[0].content, checked[0].content.get());
    assert_eq!(unchecked[0].text, "summary up to u3");
    assert_eq!(unchecked[1].text, "");

    // Nothing was deleted: the whole path is still there.
    let leaf = store.get_session(&s.id).unwrap().leaf_id.unwrap();
    assert_eq!(
        texts(&store.path_to(&s.id, &leaf).unwrap()),
        [
            "u1",
            "a1",
            "u2",
            "a2",
            "summary of u1 a1",
            "u3",
            "a3",
            "summary up to u3",
            "u4"
        ]
    );
    let tree = store.session_tree(&s.id).unwrap();
    assert_eq!(tree.nodes.len(), 9);
}

#[test]
fn compaction_on_a_branch_does_not_affect_the_sibling_branch() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let _u1 = user(&store, &s.id, "u1");
    let a1 = assistant(&store, &s.id, "a1");
    // Branch A: long, then compacted.
    let ua = user(&store, &s.id, "branch A question");
    let aa = assistant(&store, &s.id, "branch A answer");
    store
        .append(&s.id, NewNode::compaction("summary A", &ua.id, 500))
        .unwrap();
    let after_a = user(&store, &s.id, "after A compaction");
    assert_eq!(
        texts(&store.context(&s.id).unwrap()),
        [
            "summary A",
            "branch A question",
            "branch A answer",
            "after A compaction"
        ]
    );
    // Branch B from a1: no compaction on its path.
    store.set_leaf(&s.id, Some(&a1.id)).unwrap();
    user(&store, &s.id, "branch B question");
    assert_eq!(
        texts(&store.context(&s.id).unwrap()),
        ["u1", "a1", "branch B question"]
    );
    // A compaction may not keep a node from another branch.
    let err = store
        .append(&s.id, NewNode::compaction("bad", &aa.id, 1))
        .unwrap_err();
    assert!(err.to_string().contains("not on the path"), "{err}");
    // Back on A, its compaction still applies.
    store.set_leaf(&s.id, Some(&after_a.id)).unwrap();
    assert_eq!(store.context(&s.id).unwrap()[0].text, "summary A");
}

#[test]
fn compaction_needs_a_kept_node() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let mut n = NewNode::compaction("x", "0190", 1);
    n.first_kept_id = None;
    assert!(store.append(&s.id, n).is_err());
    let u = user(&store, &s.id, "u");
    let mut n = msg(NodeKind::User, "y");
    n.first_kept_id = Some(u.id.clone());
    assert!(store.append(&s.id, n).is_err());
    // Keeping from the parent itself is allowed.
    store
        .append(&s.id, NewNode::compaction("s", &u.id, 1))
        .unwrap();
    assert_eq!(texts(&store.context(&s.id).unwrap()), ["s", "u"]);
}

#[test]
fn aborted_partial_message_is_kept_and_marked() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    user(&store, &s.id, "write a poem");
    let partial = store
        .append(
            &s.id,
            msg(NodeKind::Assistant, "Roses are")
                .with_aborted(true)
                .with_usage(json!({"input": 10, "output": 2})),
        )
        .unwrap();
    let ctx = store.context(&s.id).unwrap();
    assert!(ctx[1].aborted);
    assert_eq!(ctx[1].id, partial.id);
    assert_eq!(
        ctx[1].usage_value().unwrap(),
        Some(json!({"input": 10, "output": 2}))
    );
    assert!(store.session_tree(&s.id).unwrap().nodes[1].aborted);
}

#[test]
fn fork_copies_the_path_into_a_new_session() {
    let (dir, store) = temp_store();
    let (p, s) = session(&store, &dir);
    let u1 = user(&store, &s.id, "q1");
    let a1 = assistant(&store, &s.id, "a1");
    let u2 = user(&store, &s.id, "q2");
    store
        .append(&s.id, NewNode::compaction("sum", &u2.id, 7))
        .unwrap();
    let _a2 = assistant(&store, &s.id, "a2");
    store.set_label(&s.id, &a1.id, Some("good point")).unwrap();
    // A sibling branch that must not be copied.
    store.set_leaf(&s.id, Some(&u1.id)).unwrap();
    assistant(&store, &s.id, "other branch");
    let leaf_a2 = store.session_tree(&s.id).unwrap().nodes[4].id.clone();

    let f = store.fork_session(&s.id, Some(&leaf_a2)).unwrap();
    assert_ne!(f.id, s.id);
    assert_eq!(f.project_id, p.id);
    assert_eq!(f.title, "q1");
    assert_eq!(f.model.as_deref(), Some("test-model"));
    let tree = store.session_tree(&f.id).unwrap();
    assert_eq!(tree.nodes.len(), 5);
    let original: Vec<_> = store.path_to(&s.id, &leaf_a2).unwrap();
    let copied = store.path_to(&f.id, f.leaf_id.as_deref().unwrap()).unwrap();
    assert_eq!(texts(&original), texts(&copied));
    for (o, c) in original.iter().zip(&copied) {
        assert_ne!(o.id, c.id);
        assert_eq!(c.session_id, f.id);
        assert_eq!(
            (o.kind, o.content.get(), o.created_at),
            (c.kind, c.content.get(), c.created_at)
        );
    }
    // The compaction points into the copy, and the context is the same.
    assert_eq!(
        copied[3].first_kept_id.as_deref(),
        Some(copied[2].id.as_str())
    );
    assert_eq!(texts(&store.context(&f.id).unwrap()), ["sum", "q2", "a2"]);
    assert_eq!(tree.nodes[1].label.as_deref(), Some("good point"));
    // The original is untouched.
    assert_eq!(store.session_tree(&s.id).unwrap().nodes.len(), 6);
    // Forking an empty session gives an empty session.
    let empty = store.create_session(&p.id, None, None).unwrap();
    let f2 = store.fork_session(&empty.id, None).unwrap();
    assert!(store.session_tree(&f2.id).unwrap().nodes.is_empty());
}

#[test]
fn the_outline_matches_the_tree_and_nodes_come_back_by_id_in_order() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let u = user(&store, &s.id, "q");
    let a = assistant(&store, &s.id, "a");
    store.set_leaf(&s.id, Some(&u.id)).unwrap();
    let b = assistant(&store, &s.id, "b");
    store.set_label(&s.id, &a.id, Some("first")).unwrap();

    let (session, outline) = store.session_outline(&s.id).unwrap();
    assert_eq!(session.leaf_id.as_deref(), Some(b.id.as_str()));
    let tree = store.session_tree(&s.id).unwrap();
    let from_tree: Vec<_> = tree
        .nodes
        .iter()
        .map(|n| (n.id.clone(), n.parent_id.clone(), n.kind, n.label.clone()))
        .collect();
    let from_outline: Vec<_> = outline
        .iter()
        .map(|n| (n.id.clone(), n.parent_id.clone(), n.kind, n.label.clone()))
        .collect();
    assert_eq!(from_outline, from_tree);
    assert_eq!(outline[1].label.as_deref(), Some("first"));
    // A reader that has some nodes gets the rest; past the end, none.
    assert_eq!(
        store.session_tree_from(&s.id, 1).unwrap().nodes,
        tree.nodes[1..]
    );
    assert!(store.session_tree_from(&s.id, 9).unwrap().nodes.is_empty());
    assert_eq!(store.node_count(&s.id).unwrap(), 3);

    let nodes = store.get_nodes(&[b.id.clone(), u.id.clone()]).unwrap();
    assert_eq!(nodes, [b.clone(), u.clone()]);
    let missing = store
        .get_nodes(&[u.id.clone(), "01900000-0000-7000-8000-00000000dead".into()])
        .unwrap_err();
    assert!(
        matches!(missing, StoreError::NotFound { .. }),
        "{missing:?}"
    );
}

#[test]
fn labels_set_replace_and_clear() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let u = user(&store, &s.id, "q");
    let a = assistant(&store, &s.id, "a");
    store.set_label(&s.id, &u.id, Some("  start ")).unwrap();
    assert_eq!(store.label_of(&u.id).unwrap().as_deref(), Some("start"));
    store.set_label(&s.id, &u.id, Some("renamed")).unwrap();
    let tree = store.session_tree(&s.id).unwrap();
    assert_eq!(tree.nodes[0].label.as_deref(), Some("renamed"));
    assert_eq!(tree.nodes[1].label, None);
    // Labelling does not move the leaf.
    assert_eq!(tree.session.leaf_id.as_deref(), Some(a.id.as_str()));
    store.set_label(&s.id, &u.id, Some("   ")).unwrap();
    assert_eq!(store.label_of(&u.id).unwrap(), None);
    store.set_label(&s.id, &a.id, Some("x")).unwrap();
    store.set_label(&s.id, &a.id, None).unwrap();
    assert_eq!(store.label_of(&a.id).unwrap(), None);
}

#[test]
fn title_is_the_first_line_of_the_first_prompt_until_renamed() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    assert_eq!(s.title, "");
    store
        .append(&s.id, msg(NodeKind::ModelChange, "switched model"))
        .unwrap();
    user(
        &store,
        &s.id,
        "\n\n  Fix the login bug  \nit fails on empty passwords",
    );
    assistant(&store, &s.id, "ok");
    user(&store, &s.id, "second prompt");
    assert_eq!(store.get_session(&s.id).unwrap().title, "Fix the login bug");

    let long = "é".repeat(200);
    let s2 = store.create_session(&s.project_id, None, None).unwrap();
    user(&store, &s2.id, &long);
    let t = store.get_session(&s2.id).unwrap().title;
    assert_eq!(t.chars().count(), 80);
    assert!(t.ends_with('…'));

    let renamed = store.rename_session(&s.id, "  Login work ").unwrap();
    assert_eq!(renamed.title, "Login work");
    assert!(renamed.title_is_custom);
    store.set_leaf(&s.id, None).unwrap();
    user(&store, &s.id, "a new first prompt");
    assert_eq!(store.get_session(&s.id).unwrap().title, "Login work");
    assert!(store.rename_session(&s.id, "   ").is_err());
}

#[test]
fn delete_removes_nodes_labels_and_search_rows() {
    let (dir, store) = temp_store();
    let (p, s) = session(&store, &dir);
    let keep = store.create_session(&p.id, None, None).unwrap();
    for i in 0..50 {
        user(&store, &s.id, &format!("doomed zebra {i}"));
    }
    user(&store, &keep.id, "surviving zebra");
    let first = store.session_tree(&s.id).unwrap().nodes[0].id.clone();
    store.set_label(&s.id, &first, Some("l")).unwrap();
    let many = SearchOptions {
        limit: Some(100),
        ..SearchOptions::default()
    };
    assert_eq!(store.search("zebra", &many).unwrap().len(), 51);
    assert_eq!(
        store
            .search("zebra", &SearchOptions::default())
            .unwrap()
            .len(),
        50
    );

    assert_eq!(store.delete_session(&s.id).unwrap(), s.id);
    assert!(matches!(
        store.get_session(&s.id),
        Err(arbor_store::StoreError::NotFound { .. })
    ));
    assert!(store.get_node(&first).is_err());
    assert_eq!(store.label_of(&first).unwrap(), None);
    let hits = store.search("zebra", &many).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].session_id, keep.id);
    assert!(store.check_integrity().unwrap().is_empty());
    assert!(store.delete_session(&s.id).is_err());
}

#[test]
fn lists_sessions_by_recency() {
    let (dir, store) = temp_store();
    let p1 = common::project(&store, &dir, "one");
    let p2 = common::project(&store, &dir, "two");
    let a = store.create_session(&p1.id, None, None).unwrap();
    let b = store.create_session(&p1.id, None, None).unwrap();
    let c = store.create_session(&p2.id, None, None).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    user(&store, &a.id, "touch a");
    std::thread::sleep(std::time::Duration::from_millis(3));
    user(&store, &c.id, "touch c");

    let p1_list: Vec<_> = store
        .list_sessions(Some(&p1.id), None)
        .unwrap()
        .into_iter()
        .map(|s| s.session.id)
        .collect();
    assert_eq!(p1_list, [a.id.clone(), b.id.clone()]);
    let all = store.list_sessions(None, None).unwrap();
    let ids: Vec<_> = all.iter().map(|s| s.session.id.clone()).collect();
    assert_eq!(ids, [c.id.clone(), a.id.clone(), b.id.clone()]);
    assert_eq!(all[0].project_root, p2.root);
    assert_eq!(all[0].node_count, 1);
    assert_eq!(all[2].node_count, 0);
    assert_eq!(store.list_sessions(None, Some(1)).unwrap().len(), 1);
    assert_eq!(store.latest_session(&p1.id).unwrap().unwrap().id, a.id);
    let empty = common::project(&store, &dir, "three");
    assert_eq!(store.latest_session(&empty.id).unwrap(), None);
}

#[test]
fn projects_are_found_by_root_and_remember_when_opened() {
    let (dir, store) = temp_store();
    let root = dir.path().join("work");
    std::fs::create_dir_all(&root).unwrap();
    let p = store
        .open_project(&root, Some("https://github.com/o/r"))
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    // Same folder spelled differently, no URL given: same project, URL kept.
    let again = store.open_project(&root.join("."), None).unwrap();
    assert_eq!(again.id, p.id);
    assert_eq!(again.origin_url.as_deref(), Some("https://github.com/o/r"));
    assert!(again.last_opened_at > p.last_opened_at);
    assert_eq!(store.find_project(&root).unwrap().unwrap().id, p.id);
    assert_eq!(store.find_project(&dir.path().join("nope")).unwrap(), None);
    assert_eq!(store.get_project(&p.id[..13]).unwrap().id, p.id);
    let other = common::project(&store, &dir, "other");
    assert_eq!(store.list_projects().unwrap()[0].id, other.id);
}

#[test]
fn session_model_settings_are_persisted() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let s = store
        .set_session_model(&s.id, Some("claude-x"), Some("high"))
        .unwrap();
    assert_eq!(s.model.as_deref(), Some("claude-x"));
    assert_eq!(s.thinking_level.as_deref(), Some("high"));
    drop(store);
    let store = arbor_store::Store::open(dir.path()).unwrap();
    assert_eq!(
        store.get_session(&s.id).unwrap().thinking_level.as_deref(),
        Some("high")
    );
}

#[test]
fn node_usage_sums_tokens_and_reads_the_cost_of_each_node_with_usage() {
    let (_dir, store) = temp_store();
    let (_, session) = common::session(&store, &_dir);
    user(&store, &session.id, "hi");
    let mut answer = msg(NodeKind::Assistant, "hello");
    answer.usage = Some(serde_json::json!({
        "input": 100, "output": 20, "cache_read": 300, "cache_write": 0,
        "cost": {"input": 0.001, "output": 0.002, "cache_read": 0.0, "cache_write": 0.0, "total": 0.003}
    }));
    let answered = store.append(&session.id, answer).unwrap();
    let usage = store.node_usage(&session.id).unwrap();
    assert_eq!(usage.len(), 1, "only nodes with usage");
    let figures = usage[&answered.id];
    assert_eq!(figures.tokens, 420);
    assert!((figures.cost - 0.003).abs() < 1e-12);
}

/// Two writers on one session: each appends under the node it last wrote, whatever the leaf,
/// so their turns become sibling branches; each reads its own context.
#[test]
fn appending_under_an_explicit_parent_branches_beside_another_writer() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let q = user(&store, &s.id, "q");
    // Writer A stored a call; writer B then appended its own turn at the leaf.
    let a_call = store
        .append_under(&s.id, Some(&q.id), msg(NodeKind::Assistant, "A calls"))
        .unwrap();
    let b = store
        .append_under(&s.id, Some(&a_call.id), msg(NodeKind::User, "B asks"))
        .unwrap();
    // A's result goes under A's call, not under B's turn, and becomes the leaf.
    let a_result = store
        .append_under(
            &s.id,
            Some(&a_call.id),
            msg(NodeKind::ToolResult, "A result"),
        )
        .unwrap();
    assert_eq!(a_result.parent_id.as_deref(), Some(a_call.id.as_str()));
    assert_eq!(
        store.get_session(&s.id).unwrap().leaf_id.as_deref(),
        Some(a_result.id.as_str())
    );
    let own = |leaf: &str| -> Vec<String> {
        store
            .context_json_at(&s.id, Some(leaf))
            .unwrap()
            .iter()
            .map(|n| n.id.clone())
            .collect()
    };
    assert_eq!(own(&b.id), [q.id.clone(), a_call.id.clone(), b.id.clone()]);
    assert_eq!(
        own(&a_result.id),
        [q.id.clone(), a_call.id.clone(), a_result.id.clone()]
    );
    assert!(store.context_json_at(&s.id, None).unwrap().is_empty());
    // A new root, and a parent from another session, are what they say.
    let root = store
        .append_under(&s.id, None, msg(NodeKind::User, "fresh"))
        .unwrap();
    assert_eq!(root.parent_id, None);
    let (_p2, other) = session(&store, &dir);
    assert!(store
        .append_under(&other.id, Some(&q.id), msg(NodeKind::User, "x"))
        .is_err());
}

/// An append answers the leaf the session had just before it, read in its own transaction: a
/// live session tells from it whether another writer moved the leaf since it last wrote.
#[test]
fn an_append_answers_the_leaf_it_found() {
    let (dir, store) = temp_store();
    let (_p, s) = session(&store, &dir);
    let (q, before) = store
        .append_under_seeing(&s.id, None, msg(NodeKind::User, "q"))
        .unwrap();
    assert_eq!(before, None);
    let (call, before) = store
        .append_under_seeing(&s.id, Some(&q.id), msg(NodeKind::Assistant, "A calls"))
        .unwrap();
    assert_eq!(before.as_deref(), Some(q.id.as_str()));
    // Another writer moves the leaf; the next append under A's own node finds its node.
    let other = store
        .append_under(&s.id, Some(&call.id), msg(NodeKind::User, "B asks"))
        .unwrap();
    let (result, before) = store
        .append_under_seeing(
            &s.id,
            Some(&call.id),
            msg(NodeKind::ToolResult, "A's result"),
        )
        .unwrap();
    assert_eq!(before.as_deref(), Some(other.id.as_str()));
    assert_eq!(result.parent_id.as_deref(), Some(call.id.as_str()));
    assert_eq!(store.get_session(&s.id).unwrap().leaf_id, Some(result.id));
}
