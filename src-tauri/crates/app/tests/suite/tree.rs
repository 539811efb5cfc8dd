//! The tree panel's session API against the mock provider: comparing two branches (entries,
//! tokens and cost of each side), one node's entry, exporting a branch, and summarising the
//! branch the user left after going elsewhere.

use crate::live;

use arbor_app::views::branch::NodeKind;
use arbor_coding::export::ExportFormat;
use arbor_llm::AssistantContent;
use arbor_protocol::{AgentMessage, RunStatus};
use arbor_test_support::{Script, Turn, Usage};
use live::{run, Setup};
use tokio_util::sync::CancellationToken;

fn text_of(message: &AgentMessage) -> String {
    match message {
        AgentMessage::User(user) => user
            .content
            .iter()
            .filter_map(|c| match c {
                arbor_llm::UserContent::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect(),
        AgentMessage::Assistant(answer) => answer
            .content
            .iter()
            .filter_map(|c| match c {
                AssistantContent::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect(),
        other => panic!("unexpected message {other:?}"),
    }
}

/// q1 → "One." (1,000 in / 500 out), q2 → "Two." (2,000 / 1,000), then "Two." regenerated as
/// "Two again." (4,000 / 2,000). Prices: $1/M in, $2/M out.
async fn two_branches() -> (Setup, arbor_app::LiveSession, [String; 4]) {
    let script = Script::new()
        .turn(Turn::stream().text("One.").usage(Usage::new(1_000, 500)))
        .turn(Turn::stream().text("Two.").usage(Usage::new(2_000, 1_000)))
        .turn(
            Turn::stream()
                .text("Two again.")
                .usage(Usage::new(4_000, 2_000)),
        );
    let setup = Setup::new(script).await;
    let session = setup.session("plain");
    assert_eq!(run(&session, "first question").await, RunStatus::Completed);
    assert_eq!(run(&session, "second question").await, RunStatus::Completed);
    let view = session.view().unwrap();
    let q2 = view.entries[2].node_id.clone();
    let two = view.entries[3].node_id.clone();
    let again = session.regenerate_at(Some(&two)).unwrap();
    assert_eq!(again.await.unwrap().unwrap().status, RunStatus::Completed);
    let view = session.view().unwrap();
    let two_again = view.entries[3].node_id.clone();
    assert_ne!(two, two_again);
    let one = view.entries[1].node_id.clone();
    (setup, session, [one, q2, two, two_again])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comparing_two_answers_splits_at_their_question_with_each_branchs_cost() {
    let (_setup, session, [one, q2, two, two_again]) = two_branches().await;
    // A unique prefix is enough, as everywhere else (ids are time-ordered: the tail differs).
    let compared = session.compare_branches(&two[..30], &two_again).unwrap();
    assert_eq!(compared.ancestor_id.as_deref(), Some(q2.as_str()));
    assert_eq!(compared.shared_nodes, 3);
    assert_eq!(compared.left.node_id, two);
    assert_eq!(compared.right.node_id, two_again);
    let texts = |side: &arbor_app::ComparedBranch| -> Vec<String> {
        side.entries
            .iter()
            .map(|e| text_of(e.message.as_ref().unwrap()))
            .collect()
    };
    assert_eq!(texts(&compared.left), ["Two."]);
    assert_eq!(texts(&compared.right), ["Two again."]);
    // The answer on each side knows its siblings (the other answer).
    assert_eq!(
        compared.left.entries[0].sibling_ids,
        [two.clone(), two_again.clone()]
    );

    // Tokens: the whole path and what the branch added after the split.
    assert_eq!(compared.left.own_tokens, 3_000);
    assert_eq!(compared.left.tokens, 1_500 + 3_000);
    assert_eq!(compared.right.own_tokens, 6_000);
    assert_eq!(compared.right.tokens, 1_500 + 6_000);
    // Cost: 2,000 in + 1,000 out = $0.004; 4,000 + 2,000 = $0.008; the shared first answer $0.002.
    assert!((compared.left.own_cost - 0.004).abs() < 1e-12);
    assert!((compared.right.own_cost - 0.008).abs() < 1e-12);
    assert!((compared.right.cost - 0.010).abs() < 1e-12);

    // A node against one of its ancestors: the ancestor's side is empty.
    let upper = session.compare_branches(&one, &two).unwrap();
    assert_eq!(upper.ancestor_id.as_deref(), Some(one.as_str()));
    assert!(upper.left.entries.is_empty());
    assert_eq!(upper.left.own_tokens, 0);
    assert_eq!(upper.right.entries.len(), 2);

    // Bad input names what was wrong.
    let error = session.compare_branches("ffffffff", &two).unwrap_err();
    assert_eq!(error.code(), "not_found", "{error}");
    let error = session.compare_branches("not an id", &two).unwrap_err();
    assert_eq!(error.code(), "invalid_id", "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nodes_entry_and_its_branch_export_without_moving_the_leaf() {
    let (_setup, session, [_one, _q2, two, two_again]) = two_branches().await;
    let entry = session.node_entry(&two).unwrap();
    assert_eq!(entry.kind, NodeKind::Assistant);
    assert_eq!(text_of(entry.message.as_ref().unwrap()), "Two.");

    let markdown = session
        .export_branch(&two, ExportFormat::Markdown, None)
        .unwrap()
        .content
        .unwrap();
    assert!(markdown.contains("second question"), "{markdown}");
    assert!(markdown.contains("Two."), "{markdown}");
    assert!(!markdown.contains("Two again."), "{markdown}");

    // JSONL names the exported node as its leaf, and a file is written whole.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("branch.jsonl");
    let info = session
        .export_branch(&two, ExportFormat::Jsonl, Some(&file))
        .unwrap();
    assert_eq!(info.path.as_deref(), Some(file.as_path()));
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(info.bytes, Some(written.len()));
    assert_eq!(written.lines().count(), 1 + 4, "a header and four nodes");
    assert!(written.lines().next().unwrap().contains(&two));

    // The window's branch did not move.
    let view = session.view().unwrap();
    assert_eq!(view.entries.last().unwrap().node_id, two_again);

    assert_eq!(
        session.node_entry("ffffffff").unwrap_err().code(),
        "not_found"
    );
    let missing = dir.path().join("no-such-folder").join("x.md");
    assert!(session
        .export_branch(&two, ExportFormat::Markdown, Some(&missing))
        .is_err());
    assert!(!missing.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summarising_the_branch_left_behind_adds_one_summary_on_the_new_branch() {
    let (setup, session, [_one, _q2, two, two_again]) = two_branches().await;
    // Go back to the first answer to the second question: "Two again." is left behind.
    session.visit_node(&two).unwrap();
    setup
        .mock
        .push_turn(Turn::text("They asked again and got a second answer."));
    let requests_before = setup.mock.requests().len();
    let view = session
        .summarize_left(&two_again, &CancellationToken::new())
        .await
        .unwrap();
    let last = view.entries.last().unwrap();
    assert_eq!(last.kind, NodeKind::BranchSummary);
    assert_eq!(last.parent_id.as_deref(), Some(two.as_str()));
    assert!(last.summary.as_deref().unwrap().contains("second answer"));
    // Exactly one request, and it carried what was left: the regenerated answer.
    let requests = setup.mock.requests();
    assert_eq!(requests.len(), requests_before + 1);
    let sent = requests.last().unwrap().body_text.clone();
    assert!(sent.contains("Two again."), "{sent}");

    // Nothing left behind (the old leaf is on the current path): no request, no node.
    let leaf = view.entries.last().unwrap().node_id.clone();
    let again = session
        .summarize_left(&leaf, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(again.entries.len(), view.entries.len());
    assert_eq!(setup.mock.requests().len(), requests_before + 1);

    // Cancelled before it starts: aborted, nothing stored.
    session.visit_node(&two_again).unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let error = session.summarize_left(&two, &cancel).await.unwrap_err();
    assert_eq!(error.code(), "aborted", "{error}");
    let view = session.view().unwrap();
    assert_eq!(view.entries.last().unwrap().node_id, two_again);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panel_that_knows_some_nodes_gets_only_the_ones_stored_since() {
    let (setup, session, [_one, _q2, two, two_again]) = two_branches().await;
    let whole = session.tree_view().unwrap();
    assert_eq!(whole.nodes.len(), 5);
    let none_new = session.tree_since(whole.nodes.len()).unwrap();
    assert_eq!(none_new.from, 5);
    assert!(none_new.nodes.is_empty());
    assert_eq!(none_new.leaf_id.as_deref(), Some(two_again.as_str()));

    setup.mock.push_turn(Turn::text("Three."));
    assert_eq!(run(&session, "third question").await, RunStatus::Completed);
    let delta = session.tree_since(whole.nodes.len()).unwrap();
    assert_eq!(delta.from, 5);
    let kinds: Vec<NodeKind> = delta.nodes.iter().map(|n| n.kind).collect();
    assert_eq!(kinds, [NodeKind::User, NodeKind::Assistant]);
    assert_eq!(
        delta.nodes[0].parent_id.as_deref(),
        Some(two_again.as_str())
    );
    assert_eq!(delta.leaf_id.as_ref(), Some(&delta.nodes[1].id));
    // The appended nodes are exactly the whole tree's tail.
    let now = session.tree_view().unwrap();
    assert_eq!(now.nodes[5..], delta.nodes[..]);

    // Past the end: nothing, from the end. A visit moves only the leaf.
    assert_eq!(session.tree_since(99).unwrap().from, 7);
    session.visit_node(&two).unwrap();
    let moved = session.tree_since(7).unwrap();
    assert!(moved.nodes.is_empty());
    assert_eq!(moved.leaf_id.as_deref(), Some(two.as_str()));
}
