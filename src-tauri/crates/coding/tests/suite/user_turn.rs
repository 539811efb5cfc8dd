//! A user turn stored on a thread beside the request it starts (front ends that show no tree):
//! the next node still goes under it, events keep their order, and a failure stops the run at
//! its next message.

use std::sync::{Arc, Mutex};

use arbor_agent::AgentMessage;
use arbor_coding::{CodingEvent, EventSink, SessionRecorder, SessionsError};
use arbor_llm::{Api, AssistantMessage, UserMessage};
use arbor_store::Store;

fn user(text: &str) -> AgentMessage {
    AgentMessage::User(UserMessage::text(text))
}

fn answer() -> AgentMessage {
    AgentMessage::Assistant(AssistantMessage::empty(Api::AnthropicMessages, "p", "m"))
}

/// A recorder of a project in a fresh folder, with the events it sends.
fn recorder(dir: &tempfile::TempDir) -> (SessionRecorder, Arc<Mutex<Vec<CodingEvent>>>) {
    let store = Store::open(&dir.path().join("data")).unwrap();
    let recorder = SessionRecorder::new(store, dir.path()).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let heard = events.clone();
    let sink: EventSink =
        Arc::new(move |event: &CodingEvent| heard.lock().unwrap().push(event.clone()));
    recorder.set_sink(Some(sink));
    (recorder, events)
}

fn appended(events: &Mutex<Vec<CodingEvent>>) -> Vec<(String, Option<String>)> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|event| match event {
            CodingEvent::NodeAppended {
                node_id, parent_id, ..
            } => Some((node_id.clone(), parent_id.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn the_next_node_goes_under_a_user_turn_stored_beside_its_request() {
    let dir = tempfile::tempdir().unwrap();
    let (recorder, events) = recorder(&dir);
    recorder.store_user_turns_beside(true);
    for turn in 0..3 {
        // Not stored here: the caller goes on to its request at once.
        assert!(recorder
            .record(&user(&format!("question {turn}")))
            .unwrap()
            .is_none());
        let answer = recorder.record(&answer()).unwrap().unwrap();
        recorder.wait_for_snapshot();
        let nodes = appended(&events);
        let (question, _) = &nodes[nodes.len() - 2];
        // The answer went under the question, and was reported after it.
        assert_eq!(answer.parent_id.as_ref(), Some(question));
        assert_eq!(nodes[nodes.len() - 1].0, answer.id);
    }
    let session = recorder.session().unwrap().unwrap();
    let stored = recorder.with_store(|store| store.context(&session.id).unwrap());
    assert_eq!(stored.len(), 6);
    assert_eq!(appended(&events).len(), 6);
    // The first node has no parent; every later one is under the one before.
    let nodes = appended(&events);
    assert_eq!(nodes[0].1, None);
    for pair in nodes.windows(2) {
        assert_eq!(pair[1].1.as_ref(), Some(&pair[0].0));
    }
}

#[test]
fn a_user_turn_that_cannot_be_stored_stops_the_run_at_its_next_message() {
    let dir = tempfile::tempdir().unwrap();
    let (recorder, events) = recorder(&dir);
    recorder.record(&user("first")).unwrap().unwrap();
    let session = recorder.session().unwrap().unwrap();
    // Another process deletes the session under the live one.
    Store::open(&dir.path().join("data"))
        .unwrap()
        .delete_session(&session.id)
        .unwrap();
    recorder.store_user_turns_beside(true);
    assert!(recorder.record(&user("second")).unwrap().is_none());
    match recorder.record(&answer()) {
        Err(SessionsError::StoreFailed(why)) => assert!(why.contains("session"), "{why}"),
        other => panic!("the answer was stored after a failed user turn: {other:?}"),
    }
    recorder.wait_for_snapshot();
    let errors = events
        .lock()
        .unwrap()
        .iter()
        .filter(|event| matches!(event, CodingEvent::StoreError { .. }))
        .count();
    assert_eq!(errors, 1, "{:?}", events.lock().unwrap());
    assert!(recorder.store_failed().is_some());
}
