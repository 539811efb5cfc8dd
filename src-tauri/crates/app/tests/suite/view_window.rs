//! A chat window's view of a long branch carries only its tail ([`VIEW_TAIL`] entries, the cut
//! moved back so tool results come with their call), says how many entries come before, and
//! hands out earlier pages on request.

use crate::live;

use arbor_app::views::branch::NodeKind;
use arbor_app::VIEW_TAIL;
use arbor_protocol::RunStatus;
use arbor_test_support::{Script, Turn};
use live::{run, Setup};
use serde_json::json;

const PROMPTS: usize = 60;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_branch_is_viewed_by_its_tail_and_read_back_page_by_page() {
    let mut script = Script::new();
    for i in 0..PROMPTS {
        script = script
            .turn(Turn::stream().tool_call("read", json!({"path": "a.txt"})))
            .turn(Turn::text(format!("Answer {i}.")));
    }
    let setup = Setup::new(script).await;
    std::fs::write(setup.project.path().join("a.txt"), "alpha\n").unwrap();
    let session = setup.session("plain");
    for i in 0..PROMPTS {
        assert_eq!(
            run(&session, &format!("question {i}")).await,
            RunStatus::Completed
        );
    }
    // Each prompt stores four entries: question, call, result, answer.
    let total = PROMPTS * 4;
    let view = session.view().unwrap();
    assert_eq!(view.entries.len(), VIEW_TAIL);
    assert_eq!(view.earlier, total - VIEW_TAIL);
    assert_eq!(view.entries[0].kind, NodeKind::User);
    assert_eq!(view.entries.last().unwrap().kind, NodeKind::Assistant);

    // Two entries before the first shown would start at a tool result: the page starts at the
    // call it answers.
    let first = view.entries[0].node_id.clone();
    let page = session.earlier_entries(&first, 2).unwrap();
    let kinds: Vec<NodeKind> = page.entries.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            NodeKind::Assistant,
            NodeKind::ToolResult,
            NodeKind::Assistant
        ]
    );
    assert_eq!(page.earlier, view.earlier - 3);
    // The entry just before the first shown is the last of the page.
    assert_eq!(
        page.entries.last().unwrap().node_id,
        view.entries[0].parent_id.clone().unwrap()
    );

    // Everything before: the rest of the branch, from the root.
    let rest = session.earlier_entries(&first, 10_000).unwrap();
    assert_eq!(rest.earlier, 0);
    assert_eq!(rest.entries.len(), view.earlier);
    assert_eq!(rest.entries[0].parent_id, None);

    // A node that is not on the branch shown.
    let error = session.earlier_entries("not-a-node", 5).unwrap_err();
    assert_eq!(error.code(), "not_on_branch", "{error}");
}
