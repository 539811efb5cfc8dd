//! A server's question in the middle of a call (elicitation), with the mock server's `ask` tool:
//! it reaches the session whose call runs, as a form with the server's defaults; the answer
//! goes back; the call's time limit waits for the person; an abort withdraws the question; with
//! nobody to ask it is declined.

use std::sync::Mutex;
use std::time::Duration;

use arbor_mcp::elicitation::{ElicitationForm, ElicitationReply, Elicitor};
use arbor_mcp::McpError;
use arbor_protocol::views::elicitation::ElicitationFieldKind;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;

/// A person who takes `delay` to answer with `content`, and notes what was asked and whether
/// the question was withdrawn.
struct Person {
    delay: Duration,
    content: serde_json::Value,
    asked: Mutex<Vec<ElicitationForm>>,
    withdrawn: Mutex<bool>,
}

impl Person {
    fn new(delay: Duration, content: serde_json::Value) -> Arc<Self> {
        Arc::new(Self {
            delay,
            content,
            asked: Mutex::default(),
            withdrawn: Mutex::new(false),
        })
    }
}

#[async_trait::async_trait]
impl Elicitor for Person {
    async fn elicit(&self, form: ElicitationForm, ended: CancellationToken) -> ElicitationReply {
        let fields = form.fields.clone();
        self.asked.lock().unwrap().push(form);
        tokio::select! {
            () = tokio::time::sleep(self.delay) => {}
            () = ended.cancelled() => {
                *self.withdrawn.lock().unwrap() = true;
                return ElicitationReply::Cancel;
            }
        }
        let content = self.content.as_object().cloned().unwrap_or_default();
        match arbor_mcp::elicitation::check(&fields, content) {
            Ok(checked) => ElicitationReply::Accept(checked),
            Err(_) => ElicitationReply::Decline,
        }
    }
}

fn answer_of(value: &serde_json::Value) -> serde_json::Value {
    let text = value["content"][0]["text"].as_str().unwrap();
    serde_json::from_str(text.strip_prefix("answer: ").unwrap()).unwrap()
}

#[tokio::test]
async fn a_question_reaches_the_person_and_their_answer_the_server_however_long_they_take() {
    // The call's limit is 1 s; the person takes 2.5 s: the limit waits for them.
    let hub = hub(&[], Duration::from_secs(1));
    let server = mock(&hub, &[]);
    let person = Person::new(
        Duration::from_millis(2500),
        json!({"age": 36, "colour": "green"}),
    );
    let result = server
        .call_asking(
            "ask",
            args(json!({"question": "Who is calling?"})),
            &CancellationToken::new(),
            Some(person.clone()),
        )
        .await
        .unwrap();
    assert_eq!(
        answer_of(&result),
        json!({"action": "accept", "content": {"name": "Ada", "age": 36, "colour": "green"}}),
        "the default fills the field left out"
    );
    let form = person.asked.lock().unwrap()[0].clone();
    assert_eq!(
        (form.server.as_str(), form.message.as_str()),
        ("mock", "Who is calling?")
    );
    assert_eq!(form.initial, args(json!({"name": "Ada"})));
    let colour = form.fields.iter().find(|f| f.name == "colour").unwrap();
    assert_eq!(colour.kind, ElicitationFieldKind::Choice);
    assert_eq!(colour.options[1].label, "Green");
    assert!(form.fields.iter().any(|f| f.name == "age" && f.required));
    hub.stop_all().await;
}

#[tokio::test]
async fn with_nobody_to_ask_the_question_is_declined_and_logged() {
    let hub = hub(&[], Duration::from_secs(10));
    let server = mock(&hub, &[]);
    let result = server
        .call("ask", args(json!({})), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(answer_of(&result), json!({"action": "decline"}));
    assert!(
        server
            .log()
            .iter()
            .any(|line| line.contains("nobody could answer it: declined")),
        "{:?}",
        server.log()
    );
    hub.stop_all().await;
}

#[tokio::test]
async fn an_abort_withdraws_the_question_and_ends_the_call() {
    let hub = hub(&[], Duration::from_secs(10));
    let server = mock(&hub, &[]);
    let person = Person::new(Duration::from_secs(600), json!({}));
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let asked = person.clone();
    tokio::spawn(async move {
        while asked.asked.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stop.cancel();
    });
    let outcome = tokio::time::timeout(
        Duration::from_secs(20),
        server.call_asking("ask", args(json!({})), &cancel, Some(person.clone())),
    )
    .await
    .expect("the abort ends the call");
    assert!(matches!(outcome, Err(McpError::Aborted)), "{outcome:?}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        *person.withdrawn.lock().unwrap(),
        "the question is withdrawn"
    );
    hub.stop_all().await;
}
