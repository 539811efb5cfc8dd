//! A server's question in the middle of a session's call (MCP elicitation): it arrives on the
//! session's stream as a form with the server's defaults, an answer that does not fit is
//! refused and leaves it waiting, a fitting one reaches the server and, through its result, the
//! model; where nobody can answer, the question is declined.

use crate::live::{self, Setup};
use crate::mcp::{mock_server, session};

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbor_app::views::elicitation::{ElicitationAction, ElicitationRequest};
use arbor_app::views::mcp::McpScope;
use arbor_protocol::{CodingEvent, SessionEvent};
use arbor_test_support::{Script, Turn};
use serde_json::json;

async fn approved_mock(setup: &Setup) {
    let root = setup.project.path();
    setup
        .app
        .add_mcp_server(root, mock_server("mock", None))
        .unwrap();
    let review = setup
        .app
        .mcp_tools_review(root, McpScope::User, "mock")
        .await
        .unwrap();
    setup
        .app
        .approve_mcp_tools(root, McpScope::User, "mock", &review.hash)
        .await
        .unwrap();
}

/// The tool results the model was sent last, the mock server's JSON answer unescaped.
fn last_tool_results(setup: &Setup) -> Vec<String> {
    let requests = setup.mock.requests();
    let last = requests.last().expect("the model was asked");
    last.tool_results()
        .iter()
        .map(|r| r.replace("\\\"", "\""))
        .collect()
}

fn ask_script() -> Script {
    Script::new()
        .turn(Turn::stream().tool_call("mcp__mock__ask", json!({"question": "How old are you?"})))
        .turn(Turn::text("Thanks."))
}

#[tokio::test]
async fn a_question_mid_call_is_asked_on_the_stream_and_only_a_fitting_answer_goes_back() {
    let setup = Setup::new(ask_script()).await;
    approved_mock(&setup).await;
    let mut asking = session(&setup, &["Mcp(mock:*)"]);
    let events: Arc<Mutex<Vec<SessionEvent>>> = Arc::default();
    let seen = events.clone();
    asking.attach(move |event| seen.lock().unwrap().push(event.clone()));
    asking.set_permissions_answerable(true);

    let run = asking.start_prompt("ask me".into(), Vec::new()).unwrap();
    let request: ElicitationRequest = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let found = events.lock().unwrap().iter().find_map(|e| match e {
                SessionEvent::Coding(CodingEvent::ElicitationRequested { request }) => {
                    Some(request.clone())
                }
                _ => None,
            });
            match found {
                Some(request) => return request,
                None => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    })
    .await
    .expect("the server's question reaches the stream");
    assert_eq!(request.server, "mock");
    assert_eq!(request.message, "How old are you?");
    assert_eq!(
        request.initial,
        *json!({"name": "Ada"}).as_object().unwrap()
    );
    assert_eq!(asking.waiting_elicitations(), vec![request.clone()]);

    // An answer that does not fit the form is refused, and the question keeps waiting.
    let wrong = asking.answer_elicitation(
        &request.request_id,
        ElicitationAction::Accept,
        json!({"age": "old", "colour": "blue"}).as_object().cloned(),
    );
    let error = wrong.unwrap_err();
    assert_eq!(error.code(), arbor_error_code::ErrorCode::InvalidRequest);
    let message = error.to_string();
    assert!(
        message.contains("age: expected a whole number")
            && message.contains("colour: \"blue\" is not one of its options"),
        "{message}"
    );
    assert_eq!(asking.waiting_elicitations().len(), 1);

    asking
        .answer_elicitation(
            &request.request_id,
            ElicitationAction::Accept,
            json!({"age": 7}).as_object().cloned(),
        )
        .unwrap();
    let unknown = asking.answer_elicitation(&request.request_id, ElicitationAction::Cancel, None);
    assert_eq!(
        unknown.unwrap_err().code(),
        arbor_error_code::ErrorCode::NotFound,
        "answered once"
    );
    run.await.unwrap().unwrap();

    let results = last_tool_results(&setup);
    assert!(
        results
            .iter()
            .any(|r| r.contains(r#""content":{"age":7,"name":"Ada"}"#)
                && r.contains(r#""action":"accept""#)),
        "the answer, with the default, reached the server and the model: {results:?}"
    );
    assert!(events.lock().unwrap().iter().any(|e| matches!(
        e,
        SessionEvent::Coding(CodingEvent::ElicitationResolved {
            action: ElicitationAction::Accept,
            ..
        })
    )));
    setup.app.stop_mcp_servers().await;
}

#[tokio::test]
async fn where_nobody_can_answer_the_question_is_declined_at_once() {
    let setup = Setup::new(ask_script()).await;
    approved_mock(&setup).await;
    // `-p` and `arbor mcp serve`: nobody to ask.
    let unattended = session(&setup, &["Mcp(mock:*)"]);
    live::run(&unattended, "ask me").await;
    let results = last_tool_results(&setup);
    assert!(
        results
            .iter()
            .any(|r| r.contains(r#"{"action":"decline"}"#)),
        "{results:?}"
    );
    setup.app.stop_mcp_servers().await;
}
