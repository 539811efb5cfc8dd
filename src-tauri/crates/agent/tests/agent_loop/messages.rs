//! What reaches the model: image attachments, custom messages and the message transformer.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arbor_agent::{AgentEvent, AgentMessage, CustomMessage, RunStatus};
use arbor_llm::{ImageContent, Message, UserContent, UserMessage};
use arbor_test_support::{Script, Turn, WireApi};
use serde_json::json;

use crate::common::{roles, Harness};

#[tokio::test]
async fn images_are_sent_with_the_prompt() {
    let h = Harness::start(WireApi::AnthropicMessages, Turn::text("A red dot.")).await;
    let image = ImageContent {
        data: "iVBORw0KGgoAAAANSUhEUg==".into(),
        mime_type: "image/png".into(),
    };
    let outcome = h
        .agent
        .prompt("What is this?", vec![image.clone()])
        .await
        .unwrap();
    let AgentMessage::User(user) = &outcome.messages[0] else {
        panic!("{:?}", outcome.messages[0]);
    };
    assert_eq!(user.content.len(), 2);
    assert_eq!(user.content[1], UserContent::Image(image));
    let body = h.request_body(0);
    assert!(
        body.contains("iVBORw0KGgoAAAANSUhEUg==") && body.contains("image/png"),
        "{body}"
    );
}

#[tokio::test]
async fn custom_messages_reach_the_model_only_through_the_transformer() {
    let script = Script::new()
        .turn(Turn::text("first"))
        .turn(Turn::text("second"));
    let h = Harness::start(WireApi::OpenAiCompletions, script).await;
    let note = AgentMessage::Custom(CustomMessage {
        kind: "note".into(),
        data: json!({"text": "the build is green"}),
    });
    h.agent.append_message(note.clone()).unwrap();

    // Default: custom messages stay out of the request.
    h.agent.prompt("Status?", Vec::new()).await.unwrap();
    assert!(!h.request_body(0).contains("the build is green"));

    h.agent
        .set_message_transformer(Arc::new(|messages: &[AgentMessage]| {
            messages
                .iter()
                .filter_map(|message| match message {
                    AgentMessage::Custom(custom) => {
                        Some(Message::User(UserMessage::text(format!(
                            "[{}] {}",
                            custom.kind,
                            custom.data["text"].as_str().unwrap_or("")
                        ))))
                    }
                    other => other.as_llm(),
                })
                .collect::<Vec<Message>>()
        }));
    h.agent.prompt("And now?", Vec::new()).await.unwrap();
    let body = h.request_body(1);
    assert!(body.contains("[note] the build is green"), "{body}");
    // The conversation itself still holds the custom message as it was.
    let messages = h.agent.messages();
    assert_eq!(messages[0], note);
    assert_eq!(
        roles(&messages),
        ["custom", "user", "assistant", "user", "assistant"]
    );
}

#[tokio::test]
async fn the_agent_is_idle_when_agent_end_is_reported() {
    let h = Harness::start(WireApi::OpenAiResponses, Turn::text("hi")).await;
    let idle_at_end = Arc::new(AtomicBool::new(false));
    let agent = h.agent.clone();
    let flag = idle_at_end.clone();
    h.agent.subscribe(move |event| {
        if let AgentEvent::AgentEnd { .. } = event {
            flag.store(!agent.is_streaming(), Ordering::SeqCst);
        }
    });
    let outcome = h.agent.prompt("Hello", Vec::new()).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    assert!(idle_at_end.load(Ordering::SeqCst));
    h.agent.wait_for_idle().await;
}
