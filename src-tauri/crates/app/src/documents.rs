//! Documents attached to a message: read as text for the composer's chip, then made part of
//! the user message the prompt sends.

use arbor_agent::AgentMessage;
use arbor_documents::{extract, kind_of, Limits};
use arbor_llm::{ImageContent, TextContent, UserContent, UserMessage};
use arbor_protocol::views::attachments::DocumentAttachment;

use crate::AppError;

/// The largest file a message takes as a document (the read tool takes larger ones in pages).
pub const MAX_ATTACHED_DOCUMENT_BYTES: u64 = 25 * 1024 * 1024;
/// The text of one attached document: about 100,000 tokens, half of a large context window.
/// The model can `read` the rest when the file is in the project.
pub const MAX_ATTACHED_DOCUMENT_CHARS: usize = 400_000;

/// Reads `bytes`, the file `name`, as a document for a message. Blocks while the parser runs
/// (at most its time limit): call it on a blocking thread.
pub fn read_document(name: &str, bytes: Vec<u8>) -> Result<DocumentAttachment, AppError> {
    let name = file_name(name);
    let kind =
        kind_of(&name, &bytes).ok_or_else(|| AppError::NotADocument { name: name.clone() })?;
    let size = bytes.len() as u64;
    let limits = Limits {
        max_file_bytes: MAX_ATTACHED_DOCUMENT_BYTES,
        max_text_chars: MAX_ATTACHED_DOCUMENT_CHARS,
        ..Limits::default()
    };
    let document = extract(&name, kind, bytes, &limits)?;
    Ok(DocumentAttachment {
        label: kind.label().to_owned(),
        size,
        parts: u32::try_from(document.parts).unwrap_or(u32::MAX),
        part_name: kind.part_name().to_owned(),
        omitted_chars: document.omitted_chars as u64,
        text: document.text,
        name,
    })
}

/// [`read_document`] for a front end that sends the file's bytes as base64 (the desktop's
/// composer: the webview reads the picked file, Rust never sees a path it names).
pub fn read_document_base64(name: &str, data: &str) -> Result<DocumentAttachment, AppError> {
    use base64::Engine as _;
    // Checked before decoding: base64 is a third larger than the bytes.
    if data.len() as u64 > MAX_ATTACHED_DOCUMENT_BYTES / 3 * 4 + 4 {
        return Err(arbor_documents::DocumentError::FileTooLarge {
            name: file_name(name),
            size: data.len() as u64 / 4 * 3,
            limit: MAX_ATTACHED_DOCUMENT_BYTES,
        }
        .into());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|error| {
            AppError::Unsupported(format!(
                "{}: the file did not arrive whole ({error}); attach it again",
                file_name(name)
            ))
        })?;
    read_document(name, bytes)
}

/// The last component of what the front end called the file: a name, never a path.
fn file_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or(name).trim();
    if last.is_empty() {
        "document".to_owned()
    } else {
        last.to_owned()
    }
}

/// The user message of a prompt: the typed text, each document's text, then the images.
pub(crate) fn user_message(
    text: String,
    images: Vec<ImageContent>,
    documents: Vec<DocumentAttachment>,
) -> Result<AgentMessage, AppError> {
    if documents.is_empty() {
        return Ok(arbor_agent::user_message(text, images));
    }
    let mut content = Vec::with_capacity(1 + documents.len() + images.len());
    if !text.is_empty() {
        content.push(UserContent::Text(TextContent::new(text)));
    }
    for document in documents {
        if document.text.chars().count() > MAX_ATTACHED_DOCUMENT_CHARS + 1_000 {
            return Err(AppError::DocumentTooLong {
                name: document.name,
            });
        }
        content.push(UserContent::Text(TextContent::new(document.text)));
    }
    content.extend(images.into_iter().map(UserContent::Image));
    Ok(AgentMessage::User(UserMessage { content }))
}

/// Whether a text part of a user message is a document's (or a mentioned file's) text: its
/// first line is the heading `arbor-documents` (or a mention) writes, `[name: label, N parts]`.
pub(crate) fn is_document_part(text: &str) -> bool {
    let first = text.lines().next().unwrap_or_default();
    let Some(inner) = first
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    else {
        return false;
    };
    let Some((_, described)) = inner.rsplit_once(": ") else {
        return false;
    };
    let Some((label, count)) = described.split_once(", ") else {
        return false;
    };
    let known = [
        "PDF",
        "Word document",
        "presentation",
        "spreadsheet",
        "file",
    ];
    let counted = count.split_once(' ').is_some_and(|(number, part)| {
        number.parse::<u64>().is_ok()
            && [
                "page", "pages", "slide", "slides", "sheet", "sheets", "line", "lines",
            ]
            .contains(&part)
    });
    known.contains(&label) && counted && text.contains('\n')
}

/// What a user message carried besides its typed text: its documents' parts and its images.
pub(crate) fn attachments_of(message: UserMessage) -> Vec<UserContent> {
    message
        .content
        .into_iter()
        .filter(|part| match part {
            UserContent::Text(text) => is_document_part(&text.text),
            UserContent::Image(_) => true,
        })
        .collect()
}

/// A user message of `text` with `attached` (documents' parts, then images, as sent).
pub(crate) fn with_attachments(text: String, attached: Vec<UserContent>) -> AgentMessage {
    let mut content = Vec::with_capacity(1 + attached.len());
    if !text.is_empty() || attached.is_empty() {
        content.push(UserContent::Text(TextContent::new(text)));
    }
    content.extend(attached);
    AgentMessage::User(UserMessage { content })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_names_and_documents_come_after_the_text() {
        assert_eq!(file_name("/home/u/spec.pdf"), "spec.pdf");
        assert_eq!(file_name("C:\\Users\\u\\a.docx"), "a.docx");
        assert_eq!(file_name(""), "document");
        let document = DocumentAttachment {
            name: "a.pdf".into(),
            label: "PDF".into(),
            size: 10,
            parts: 1,
            part_name: "page".into(),
            omitted_chars: 0,
            text: "[a.pdf: PDF, 1 page]\n--- page 1 ---\nhello\n".into(),
        };
        let AgentMessage::User(message) =
            user_message("Summarise".into(), Vec::new(), vec![document]).unwrap()
        else {
            panic!("not a user message");
        };
        let texts: Vec<&str> = message
            .content
            .iter()
            .map(|part| match part {
                UserContent::Text(text) => text.text.as_str(),
                UserContent::Image(_) => "image",
            })
            .collect();
        assert_eq!(
            texts,
            ["Summarise", "[a.pdf: PDF, 1 page]\n--- page 1 ---\nhello\n"]
        );
        let error = read_document("notes.txt", b"plain".to_vec()).unwrap_err();
        assert_eq!(error.code(), "unsupported");
        assert!(error.to_string().contains("notes.txt"), "{error}");

        // An edit keeps the attachments and replaces the typed text.
        let kept = attachments_of(message);
        assert_eq!(kept.len(), 1);
        let AgentMessage::User(edited) = with_attachments("Shorter".into(), kept) else {
            panic!("not a user message");
        };
        assert!(matches!(&edited.content[0], UserContent::Text(t) if t.text == "Shorter"));
        assert!(matches!(&edited.content[1], UserContent::Text(t) if t.text.starts_with("[a.pdf")));
    }

    #[test]
    fn only_a_real_heading_marks_a_document_part() {
        assert!(is_document_part(
            "[spec.pdf: PDF, 2 pages]\n--- page 1 ---\n"
        ));
        assert!(is_document_part("[src/a: b.rs: file, 1 line]\nx"));
        assert!(
            !is_document_part("[spec.pdf: PDF, 2 pages]"),
            "a heading alone is typed text"
        );
        assert!(!is_document_part("[note: remember this, 2 things]\nmore"));
        assert!(!is_document_part("plain text"));
    }
}
