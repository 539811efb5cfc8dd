//! Documents attached to a message: what reading one answers, and what a prompt carries.

use serde::{Deserialize, Serialize};

/// A document (PDF, DOCX, PPTX, XLSX/ODS) read as text for a message: the composer's chip
/// shows the name, size and parts; the prompt sends it back with the message, and its `text`
/// becomes a part of the user message of its own, after the typed text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct DocumentAttachment {
    /// The file's name, as the user picked it.
    pub name: String,
    /// What the file is, in words (`PDF`, `Word document`, `presentation`, `spreadsheet`).
    pub label: String,
    /// The file's size in bytes.
    #[ts(type = "number")]
    pub size: u64,
    /// Pages, slides or sheets.
    pub parts: u32,
    /// What `parts` counts: `page`, `slide` or `sheet`.
    pub part_name: String,
    /// Characters left out by the cap on a message's document text (0: all of it is there).
    #[ts(type = "number")]
    pub omitted_chars: u64,
    /// The text the model reads: a heading line `[name: label, N parts]`, then a marker before
    /// every part.
    pub text: String,
}
