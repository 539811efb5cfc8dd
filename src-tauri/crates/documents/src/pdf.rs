//! PDF text page by page through `pdf-extract` (over `lopdf`: pure Rust, nothing to install).
//!
//! Scanned pages have no text layer: such a page is marked "(no text on this page: it may be a
//! scan)" so the model knows why it is empty instead of guessing.

use crate::text::Writer;
use crate::{DocumentError, DocumentKind};

pub(crate) fn read(name: &str, bytes: &[u8], out: &mut Writer) -> Result<(), DocumentError> {
    let pages = pdf_extract::extract_text_from_mem_by_pages(bytes).map_err(|error| {
        let reason = error.to_string();
        if reason.to_ascii_lowercase().contains("encrypt") {
            DocumentError::Encrypted {
                name: name.to_owned(),
            }
        } else {
            DocumentError::Invalid {
                name: name.to_owned(),
                kind: DocumentKind::Pdf.label(),
                reason,
            }
        }
    })?;
    for page in pages {
        out.part(None);
        let text = tidy(&page);
        if text.is_empty() {
            out.push("(no text on this page: it may be a scan)\n");
        } else {
            out.push(&text);
            out.push("\n");
        }
    }
    Ok(())
}

/// The page's text without the runs of blank lines and trailing spaces PDF layout leaves.
fn tidy(page: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let mut blank = false;
    for line in page.lines().map(str::trim_end) {
        if line.is_empty() {
            if !blank && !lines.is_empty() {
                lines.push("");
            }
            blank = true;
        } else {
            lines.push(line);
            blank = false;
        }
    }
    while lines.last() == Some(&"") {
        lines.pop();
    }
    lines.join("\n")
}
