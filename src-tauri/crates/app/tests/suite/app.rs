//! The session API (`arbor_app`) in process against the mock provider: the one event
//! stream, what was sent, what was stored, model changes, branches, and the app-wide lists.

use std::path::Path;

use arbor_app::views::branch::NodeKind;
use arbor_app::{LiveSession, ModelRequest, NavigateTo, SessionView};
use arbor_llm::UserContent;
use arbor_protocol::{AgentEvent, AgentMessage, CodingEvent, RunStatus, SessionEvent};
use arbor_test_support::{Script, Turn, Usage};
use serde_json::json;

use crate::live;

use live::{run, Setup, KEY};

fn answer_text(view: &SessionView, entry: usize) -> String {
    let message = view.entries[entry].message.as_ref().unwrap();
    message.as_assistant().unwrap().text()
}

fn kinds(view: &SessionView) -> Vec<NodeKind> {
    view.entries.iter().map(|e| e.kind).collect()
}

/// A front end that shows no tree (`arbor -p`) hears of each stored node without its views:
/// nothing is read back after a node is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_attached_without_node_views_hears_of_each_node_without_them() {
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "a.txt"})))
        .turn(Turn::stream().text("It says hello."));
    let setup = Setup::new(script).await;
    std::fs::write(setup.project.path().join("a.txt"), "hello\n").unwrap();
    let mut session = setup.session("plain");
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let heard = events.clone();
    session.attach_without_node_views(move |event| heard.lock().unwrap().push(event.clone()));
    assert_eq!(run(&session, "read a.txt").await, RunStatus::Completed);

    let appended: Vec<_> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Coding(CodingEvent::NodeAppended {
                node_id,
                node,
                sibling_ids,
                ..
            }) => Some((node_id.clone(), node.is_none() && sibling_ids.is_none())),
            _ => None,
        })
        .collect();
    let stored: Vec<_> = session
        .view()
        .unwrap()
        .entries
        .iter()
        .map(|e| (e.node_id.clone(), true))
        .collect();
    assert_eq!(appended, stored, "every node heard of, none with views");
    assert!(setup.events().is_empty(), "the first sink was replaced");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_stream_puts_each_node_appended_right_after_its_message_end() {
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "a.txt"})))
        .turn(
            Turn::stream()
                .text("It says hello.")
                .usage(Usage::new(1_000, 500)),
        );
    let setup = Setup::new(script).await;
    std::fs::write(setup.project.path().join("a.txt"), "hello\n").unwrap();
    let session = setup.session("plain");
    assert_eq!(run(&session, "read a.txt").await, RunStatus::Completed);

    let events = setup.events();
    let mut ends = 0;
    for (index, event) in events.iter().enumerate() {
        if let SessionEvent::Agent(AgentEvent::MessageEnd { .. }) = event {
            ends += 1;
            assert!(
                matches!(
                    events.get(index + 1),
                    Some(SessionEvent::Coding(CodingEvent::NodeAppended { .. }))
                ),
                "event {index}: message_end not followed by node_appended: {:?}",
                events.get(index + 1)
            );
        }
    }
    assert_eq!(ends, 4, "user, assistant, tool result, assistant");

    // What was sent: the key as a bearer token, the system prompt, the tools, and the tool
    // result in the second request.
    let sent = setup.mock.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].headers["authorization"], format!("Bearer {KEY}"));
    let first = sent[0].body.as_ref().unwrap();
    assert_eq!(first["model"], "plain");
    assert!(first["messages"][0]["content"]
        .as_str()
        .unwrap()
        .starts_with("You are a test agent."));
    let tools: Vec<_> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tools, ["read", "write"]);
    assert!(sent[1].body_text.contains("hello"));

    // What was stored: the branch with node ids, as a window shows it.
    let view = session.view().unwrap();
    assert_eq!(
        kinds(&view),
        [
            NodeKind::User,
            NodeKind::Assistant,
            NodeKind::ToolResult,
            NodeKind::Assistant
        ]
    );
    let appended: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Coding(CodingEvent::NodeAppended { node_id, .. }) => {
                Some(node_id.clone())
            }
            _ => None,
        })
        .collect();
    let stored: Vec<String> = view.entries.iter().map(|e| e.node_id.clone()).collect();
    assert_eq!(appended, stored);
    // Each node_appended carries what reading the tree and the branch gives (its tree view
    // with tokens, cost and the files the tool call changed; its siblings), so front ends need
    // not read them again after a run.
    let tree = session.tree_view().unwrap();
    let carried: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Coding(CodingEvent::NodeAppended {
                node, sibling_ids, ..
            }) => Some((node.clone().unwrap(), sibling_ids.clone().unwrap())),
            _ => None,
        })
        .collect();
    assert_eq!(
        carried
            .iter()
            .map(|(node, _)| node.clone())
            .collect::<Vec<_>>(),
        tree.nodes
    );
    for ((_, siblings), entry) in carried.iter().zip(&view.entries) {
        assert_eq!(siblings, &entry.sibling_ids);
    }
    assert!(carried[3].0.tokens > 0 && carried[3].0.cost > 0.0);
    assert!(view.state.cost > 0.0, "priced usage is counted");
    assert_eq!(view.state.model, "plain");
    assert!(view.state.context_tokens > 0);

    // The key reaches no event, view or debug output.
    let shown = format!(
        "{} {} {session:?}",
        serde_json::to_string(&events).unwrap(),
        serde_json::to_string(&view).unwrap()
    );
    assert!(!shown.contains(KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_change_rebuilds_the_tools_so_read_returns_images() {
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "dot.png"})))
        .turn(Turn::text("A dot."));
    let setup = Setup::new(script).await;
    // A 1×1 PNG.
    let png = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8,
        0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    std::fs::write(setup.project.path().join("dot.png"), png).unwrap();
    let mut session = setup.session("plain");
    assert_eq!(run(&session, "look at dot.png").await, RunStatus::Completed);
    let has_image = |session: &LiveSession| {
        session.messages().iter().rev().any(|m| match m {
            AgentMessage::ToolResult(result) => result
                .content
                .iter()
                .any(|c| matches!(c, UserContent::Image(_))),
            _ => false,
        })
    };
    assert!(!has_image(&session), "a model without images gets no image");

    let vision = setup
        .app
        .select(&ModelRequest {
            model: Some("mock/vision".into()),
            ..ModelRequest::default()
        })
        .unwrap();
    session.set_model(vision).unwrap();
    setup
        .mock
        .push_turn(Turn::stream().tool_call("read", json!({"path": "dot.png"})));
    setup.mock.push_turn(Turn::text("Still a dot."));
    assert_eq!(run(&session, "and now?").await, RunStatus::Completed);
    assert!(
        has_image(&session),
        "after switching, read returns the image"
    );
    let sent = setup.mock.requests();
    assert_eq!(
        sent.last().unwrap().body.as_ref().unwrap()["model"],
        "vision"
    );
    assert!(kinds(&session.view().unwrap()).contains(&NodeKind::ModelChange));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_and_regenerations_are_siblings_the_view_can_switch_between() {
    let script = Script::new()
        .turn(Turn::text("First answer."))
        .turn(Turn::text("Answer to the edit."))
        .turn(Turn::text("Regenerated answer."));
    let setup = Setup::new(script).await;
    let session = setup.session("plain");
    assert_eq!(run(&session, "first question").await, RunStatus::Completed);
    let first = session.view().unwrap();
    let user_id = first.entries[0].node_id.clone();

    let edited = session
        .edit_message(&user_id, "edited question".into())
        .unwrap();
    assert_eq!(edited.await.unwrap().unwrap().status, RunStatus::Completed);
    let view = session.view().unwrap();
    assert_eq!(view.entries[0].sibling_ids.len(), 2);
    assert_eq!(view.entries[0].sibling_ids[0], user_id);
    assert_ne!(view.entries[0].node_id, user_id);
    assert_eq!(answer_text(&view, 1), "Answer to the edit.");

    // Back to the first branch, at its leaf.
    session.navigate(&user_id, NavigateTo::NewestLeaf).unwrap();
    let old = session.view().unwrap();
    assert_eq!(old.entries[0].node_id, user_id);
    assert_eq!(answer_text(&old, 1), "First answer.");

    // Regenerating that answer makes a sibling answer under the same user message.
    let answer_id = old.entries[1].node_id.clone();
    let regenerated = session.regenerate_at(Some(&answer_id)).unwrap();
    assert_eq!(
        regenerated.await.unwrap().unwrap().status,
        RunStatus::Completed
    );
    let view = session.view().unwrap();
    assert_eq!(
        view.entries[1].sibling_ids,
        [answer_id.clone(), view.entries[1].node_id.clone()]
    );
    // The stream said so already: the new answer's node_appended names both siblings, so a
    // window shows `‹ 2/2 ›` without reading the branch again.
    let carried = setup
        .events()
        .into_iter()
        .rev()
        .find_map(|event| match event {
            SessionEvent::Coding(CodingEvent::NodeAppended {
                node_id,
                sibling_ids,
                ..
            }) => Some((node_id, sibling_ids)),
            _ => None,
        })
        .unwrap();
    assert_eq!(carried.0, view.entries[1].node_id);
    assert_eq!(
        carried.1.as_deref(),
        Some(view.entries[1].sibling_ids.as_slice())
    );

    // Bad input: editing an answer, regenerating a question.
    assert_eq!(
        session
            .edit_message(&answer_id, "x".into())
            .unwrap_err()
            .code(),
        "invalid_node"
    );
    assert_eq!(
        session.regenerate_at(Some(&user_id)).unwrap_err().code(),
        "invalid_node"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_lists_projects_sessions_with_costs_and_finds_messages() {
    let script = Script::new().turn(
        Turn::stream()
            .text("Zebra stripes.")
            .usage(Usage::new(2_000, 1_000)),
    );
    let setup = Setup::new(script).await;
    let project = setup
        .app
        .open_project(setup.project.path().to_str().unwrap())
        .unwrap();
    let session = setup.session("plain");
    assert_eq!(
        run(&session, "tell me about zebras").await,
        RunStatus::Completed
    );

    let recent = setup.app.recent_projects().unwrap();
    assert_eq!(recent[0].path, project.path);
    assert!(recent[0].exists);
    let sessions = setup
        .app
        .project_sessions(Path::new(&project.path))
        .unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].message_count, 2);
    // 2,000 input tokens at $1/M and 1,000 output at $2/M.
    assert!(
        (sessions[0].cost - 0.004).abs() < 1e-9,
        "{}",
        sessions[0].cost
    );
    // What the run stored waits to be indexed for search: a reader cannot index it, and finds
    // nothing until opening the project indexes it on a thread of its own.
    let reader = arbor_store::Store::open_read_only(setup.app.data_dir()).unwrap();
    let zebras = || {
        reader
            .search("zebra", &arbor_store::SearchOptions::default())
            .unwrap()
            .len()
    };
    assert_eq!(zebras(), 0);
    setup
        .app
        .open_project(setup.project.path().to_str().unwrap())
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while zebras() == 0 {
        assert!(std::time::Instant::now() < deadline, "never indexed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let hits = setup.app.search(Path::new(&project.path), "zebra").unwrap();
    assert!(!hits.is_empty());

    // A new window starts on the model the project last used, whose key is at hand.
    let last = setup.app.last_model(Path::new(&project.path)).unwrap();
    assert_eq!(last.as_deref(), Some("mock/plain"));
    let chosen = setup.app.default_selection(last.as_deref()).unwrap();
    assert_eq!(chosen.model_name(), "mock/plain");
    // Without a preference: the catalogue default has no key here, the mock provider has one.
    assert_eq!(
        setup.app.default_selection(None).unwrap().model.provider,
        "mock"
    );
    let groups = setup.app.model_groups();
    let mock = groups.iter().find(|g| g.provider == "mock").unwrap();
    assert_eq!(mock.key, "env");
    let anthropic = groups.iter().find(|g| g.provider == "anthropic").unwrap();
    assert_eq!(anthropic.key, "none");

    // Bad input gets codes a front end can branch on.
    assert_eq!(
        setup.app.open_project("relative/path").unwrap_err().code(),
        "invalid_path"
    );
    assert_eq!(
        setup
            .app
            .rename_session("no such session", "x")
            .unwrap_err()
            .code(),
        "invalid_id"
    );
    setup.app.rename_session(&sessions[0].id, "Zebras").unwrap();
    assert_eq!(
        setup
            .app
            .project_sessions(Path::new(&project.path))
            .unwrap()[0]
            .title,
        "Zebras"
    );
    setup.app.delete_session(&sessions[0].id).unwrap();
    assert!(setup
        .app
        .project_sessions(Path::new(&project.path))
        .unwrap()
        .is_empty());
    assert_eq!(
        setup
            .app
            .rename_session(&sessions[0].id, "x")
            .unwrap_err()
            .code(),
        "not_found"
    );
}
