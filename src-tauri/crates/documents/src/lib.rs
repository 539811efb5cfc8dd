//! `arbor-documents`: documents the model reads as text.
//!
//! A PDF, a Word document (DOCX), a presentation (PPTX) or a spreadsheet (XLSX, XLSM, XLS, ODS)
//! attached to a message, or read by the `read` tool, becomes plain text with the file's name and
//! a marker before every page, slide or sheet, so the model can say where something is.
//!
//! Map:
//! - [`DocumentKind`] and [`kind_of`]: what a file is, from its first bytes and its name.
//! - [`extract`]: the text, within [`Limits`]; run on a thread of its own with a time limit
//!   (`deadline.rs`), a panic in a parser becoming [`DocumentError::Invalid`].
//! - `zipped.rs`: the zip container of DOCX/PPTX/XLSX/ODS, checked before any parser sees it —
//!   the number of entries and what they really unpack to (a zip bomb stops at the cap, whatever
//!   its headers claim).
//! - `office.rs`: DOCX paragraphs and tables, PPTX slides in their order (`quick-xml`).
//! - `sheets.rs`: spreadsheets through `calamine`, rows as tab-separated lines.
//! - `pdf.rs`: PDF text page by page through `pdf-extract`.
//!
//! Every file is hostile input: sizes are capped before parsing, the output is capped while it is
//! written, and errors say what was wrong and what to do, never panic.

mod deadline;
mod office;
mod pdf;
mod sheets;
mod text;
mod zipped;

use std::time::Duration;

use arbor_error_code::ErrorCode;

pub use text::DocumentText;

/// The document formats read as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DocumentKind {
    Pdf,
    Docx,
    Pptx,
    /// XLSX, XLSM, XLS and ODS: anything `calamine` reads.
    Spreadsheet,
}

impl DocumentKind {
    /// What the parts of this kind are called in the markers (`page 3`, `slide 2`, `sheet "Q1"`).
    pub fn part_name(self) -> &'static str {
        match self {
            DocumentKind::Pdf | DocumentKind::Docx => "page",
            DocumentKind::Pptx => "slide",
            DocumentKind::Spreadsheet => "sheet",
        }
    }

    /// A person's name for the format.
    pub fn label(self) -> &'static str {
        match self {
            DocumentKind::Pdf => "PDF",
            DocumentKind::Docx => "Word document",
            DocumentKind::Pptx => "presentation",
            DocumentKind::Spreadsheet => "spreadsheet",
        }
    }
}

/// What a file is, from its first bytes and then its name's extension: `None` for anything that
/// is not a document read here (text, images and other binaries keep their own handling).
///
/// A PDF is known by its header whatever its name; the zip-based formats all start with `PK`, so
/// their extension says which one it is, and a `.docx` that is not a zip is not taken for one.
pub fn kind_of(name: &str, bytes: &[u8]) -> Option<DocumentKind> {
    // PDF readers accept the header anywhere in the first 1,024 bytes.
    let head = &bytes[..bytes.len().min(1024)];
    if head.windows(5).any(|window| window == b"%PDF-") {
        return Some(DocumentKind::Pdf);
    }
    let extension = name
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase())?;
    let zip = bytes.starts_with(b"PK\x03\x04");
    let ole = bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]);
    match extension.as_str() {
        "docx" if zip => Some(DocumentKind::Docx),
        "pptx" if zip => Some(DocumentKind::Pptx),
        "xlsx" | "xlsm" | "ods" if zip => Some(DocumentKind::Spreadsheet),
        "xls" if ole => Some(DocumentKind::Spreadsheet),
        _ => None,
    }
}

/// The image formats models take, by their magic bytes: the `read` tool and the files panel's
/// preview tell images from other binaries with this one test.
pub fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// How much a document may cost to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The file itself.
    pub max_file_bytes: u64,
    /// What a zip-based document unpacks to, all entries together.
    pub max_unpacked_bytes: u64,
    /// Entries in a zip-based document.
    pub max_entries: usize,
    /// Characters of text kept; the rest is cut with a note saying how much was left out.
    pub max_text_chars: usize,
    /// Wall-clock time for the whole extraction.
    pub time_limit: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: 50 * 1024 * 1024,
            max_unpacked_bytes: 256 * 1024 * 1024,
            max_entries: 20_000,
            max_text_chars: 2_000_000,
            time_limit: Duration::from_secs(30),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error(
        "{name} is {size} bytes; documents are read up to {limit} bytes. Split it, or export \
         the part you need."
    )]
    FileTooLarge { name: String, size: u64, limit: u64 },
    #[error(
        "{name} unpacks to more than {limit} bytes (or holds more than {entries} files), so it \
         was not read: it may be a zip bomb. Save it again from its program, or export the part \
         you need."
    )]
    UnpacksTooLarge {
        name: String,
        limit: u64,
        entries: usize,
    },
    #[error("{name} is encrypted. Save a copy without a password and attach that.")]
    Encrypted { name: String },
    #[error(
        "{name} could not be read as a {kind}: {reason}. Open it in its program and save it again."
    )]
    Invalid {
        name: String,
        kind: &'static str,
        reason: String,
    },
    #[error(
        "Reading {name} took longer than {seconds} s, so it was stopped. Export the part you need \
         as text."
    )]
    TimedOut { name: String, seconds: u64 },
}

impl DocumentError {
    pub fn code(&self) -> ErrorCode {
        match self {
            DocumentError::FileTooLarge { .. } | DocumentError::UnpacksTooLarge { .. } => {
                ErrorCode::DocumentTooLarge
            }
            DocumentError::Encrypted { .. } | DocumentError::Invalid { .. } => {
                ErrorCode::InvalidDocument
            }
            DocumentError::TimedOut { .. } => ErrorCode::TimeLimit,
        }
    }
}

/// The text of the document `bytes`, named `name` in markers and errors, read as `kind`.
///
/// Blocks for as long as the parser runs, at most `limits.time_limit`; call it from a blocking
/// thread. A parser that overruns is left to finish on its own thread (Rust cannot stop a
/// thread); its result is dropped.
pub fn extract(
    name: &str,
    kind: DocumentKind,
    bytes: Vec<u8>,
    limits: &Limits,
) -> Result<DocumentText, DocumentError> {
    let size = bytes.len() as u64;
    if size > limits.max_file_bytes {
        return Err(DocumentError::FileTooLarge {
            name: name.to_owned(),
            size,
            limit: limits.max_file_bytes,
        });
    }
    let owned_name = name.to_owned();
    let owned_limits = *limits;
    deadline::run(name, kind, limits.time_limit, move || {
        read(&owned_name, kind, &bytes, &owned_limits)
    })
}

fn read(
    name: &str,
    kind: DocumentKind,
    bytes: &[u8],
    limits: &Limits,
) -> Result<DocumentText, DocumentError> {
    let mut out = text::Writer::new(name, kind, limits.max_text_chars);
    match kind {
        DocumentKind::Pdf => pdf::read(name, bytes, &mut out)?,
        DocumentKind::Docx | DocumentKind::Pptx => {
            let archive = zipped::Archive::open(name, kind, bytes, limits)?;
            office::read(&archive, kind, &mut out)?;
        }
        DocumentKind::Spreadsheet => {
            if bytes.starts_with(b"PK") {
                // Checked before calamine unpacks anything itself.
                zipped::Archive::open(name, kind, bytes, limits)?;
            }
            sheets::read(name, bytes, &mut out)?;
        }
    }
    Ok(out.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_the_bytes_first_then_the_name() {
        assert_eq!(kind_of("notes.txt", b"%PDF-1.7\n"), Some(DocumentKind::Pdf));
        assert_eq!(
            kind_of("a.docx", b"PK\x03\x04rest"),
            Some(DocumentKind::Docx)
        );
        assert_eq!(
            kind_of("A.PPTX", b"PK\x03\x04rest"),
            Some(DocumentKind::Pptx)
        );
        assert_eq!(
            kind_of("t.ods", b"PK\x03\x04rest"),
            Some(DocumentKind::Spreadsheet)
        );
        // A name alone is not enough: a text file called .docx stays text.
        assert_eq!(kind_of("fake.docx", b"hello"), None);
        assert_eq!(kind_of("archive.zip", b"PK\x03\x04rest"), None);
        assert_eq!(kind_of("no-extension", b"PK\x03\x04"), None);
    }
}
