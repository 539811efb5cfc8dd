//! Documents attached to a message: read as the composer does (base64 from the webview), sent
//! to the model as a text part of the user message of their own, stored with the message.

use arbor_app::{read_document, read_document_base64};
use arbor_llm::UserContent;
use arbor_protocol::{AgentMessage, RunStatus};
use arbor_test_support::{Script, Turn};
use base64::Engine as _;

use crate::live::Setup;

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../documents/tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attached_pdf_reaches_the_model_as_text_with_its_page_markers() {
    let setup = Setup::new(Script::new().turn(Turn::stream().text("It is an export spec."))).await;
    let session = setup.session("plain");
    let data = base64::engine::general_purpose::STANDARD.encode(fixture("spec.pdf"));
    // A path from the front end is only a name.
    let document = read_document_base64("/home/someone/spec.pdf", &data).unwrap();
    assert_eq!(document.name, "spec.pdf");
    assert_eq!((document.label.as_str(), document.parts), ("PDF", 2));
    assert_eq!(document.part_name, "page");
    assert_eq!(document.omitted_chars, 0);

    let outcome = session
        .start_prompt_with_documents("What is this?".into(), Vec::new(), vec![document])
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);

    // What was sent: the typed text, then the document's text as its own part.
    let sent = setup.mock.requests();
    let body = sent[0].body.as_ref().unwrap();
    let user = &body["messages"][1];
    assert_eq!(user["role"], "user");
    // (The chat-completions format joins a message's text parts into one string.)
    let content = user["content"].as_str().unwrap_or_else(|| panic!("{user}"));
    let (typed, text) = content.split_once('\n').unwrap();
    assert_eq!(typed, "What is this?");
    assert!(
        text.starts_with("[spec.pdf: PDF, 2 pages]\n--- page 1 ---\n"),
        "{text}"
    );
    assert!(
        text.contains("--- page 2 ---\nSecond page: the import checks"),
        "{text}"
    );

    // Stored with the message, as sent.
    let view = session.view().unwrap();
    let Some(AgentMessage::User(stored)) = view.entries[0].message.as_ref() else {
        panic!(
            "the first entry is not the user message: {:?}",
            view.entries[0]
        );
    };
    assert!(matches!(&stored.content[1], UserContent::Text(t) if t.text == text));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editing_a_message_keeps_its_documents() {
    let script = Script::new()
        .turn(Turn::stream().text("First."))
        .turn(Turn::stream().text("Second."));
    let setup = Setup::new(script).await;
    let session = setup.session("plain");
    let document = read_document("budget.xlsx", fixture("budget.xlsx")).unwrap();
    session
        .start_prompt_with_documents("What is the total?".into(), Vec::new(), vec![document])
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    let view = session.view().unwrap();
    let user_node = view.entries[0].node_id.clone();
    session
        .edit_message(&user_node, "Which item costs most?".into())
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    let sent = setup.mock.requests();
    let edited = &sent[1].body_text;
    assert!(edited.contains("Which item costs most?"), "{edited}");
    assert!(!edited.contains("What is the total?"), "{edited}");
    assert!(
        edited.contains("[budget.xlsx: spreadsheet, 2 sheets]"),
        "the edit lost the document: {edited}"
    );
}

#[test]
fn what_is_not_a_readable_document_is_refused_with_what_to_do() {
    let error = read_document("notes.txt", b"hello".to_vec()).unwrap_err();
    assert_eq!(error.code(), "unsupported");
    assert!(
        error.to_string().contains("attach images as images"),
        "{error}"
    );

    let mut cut = fixture("budget.xlsx");
    cut.truncate(300);
    let error = read_document("budget.xlsx", cut).unwrap_err();
    assert_eq!(error.code(), "invalid_document");
    assert!(error.to_string().contains("save it again"), "{error}");

    let error = read_document_base64("a.pdf", "not base64!").unwrap_err();
    assert!(error.to_string().contains("attach it again"), "{error}");

    let huge = "A".repeat(40 * 1024 * 1024);
    let error = read_document_base64("big.pdf", &huge).unwrap_err();
    assert_eq!(error.code(), "document_too_large");
}
