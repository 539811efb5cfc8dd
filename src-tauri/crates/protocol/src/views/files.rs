//! The project's files as the composer's `@` finder and the files panel show them.

use serde::Serialize;

use crate::ImageContent;

/// A file the `@` finder matched: its path relative to the project, with `/` separators, and
/// the positions (in characters) of the query's letters in it, for highlighting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FileMatch {
    pub path: String,
    pub indices: Vec<u32>,
}

/// One entry of a folder in the files panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FileNode {
    /// Relative to the project, `/` separators.
    pub path: String,
    pub name: String,
    pub is_dir: bool,
    /// Left out by `.gitignore` (and the other ignore files): shown dimmed.
    pub ignored: bool,
    /// Bytes, for files; 0 for folders.
    #[ts(type = "number")]
    pub size: u64,
}

/// A folder's entries: folders first, then files, each by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FolderListing {
    /// The folder, relative to the project (empty for the project itself).
    pub path: String,
    pub entries: Vec<FileNode>,
    /// More entries than a listing shows were left out.
    pub truncated: bool,
}

/// What the files panel's preview shows of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PreviewKind {
    Text,
    /// A PDF, DOCX, PPTX or spreadsheet: its text.
    Document,
    Image,
    /// Neither text nor a document nor an image Arbor shows.
    Binary,
}

/// A read-only preview of one file.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct FilePreview {
    pub path: String,
    #[ts(type = "number")]
    pub size: u64,
    pub kind: PreviewKind,
    /// The text (for text and documents), with known secrets replaced.
    pub text: Option<String>,
    /// Only the start of the file is shown.
    pub truncated: bool,
    pub image: Option<ImageContent>,
}
