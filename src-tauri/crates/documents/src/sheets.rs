//! Spreadsheets through `calamine`: every sheet under its name, rows as tab-separated lines,
//! empty trailing cells left out.

use std::io::Cursor;

use calamine::{open_workbook_auto_from_rs, Data, Reader};

use crate::text::Writer;
use crate::{DocumentError, DocumentKind};

pub(crate) fn read(name: &str, bytes: &[u8], out: &mut Writer) -> Result<(), DocumentError> {
    let invalid = |reason: String| DocumentError::Invalid {
        name: name.to_owned(),
        kind: DocumentKind::Spreadsheet.label(),
        reason,
    };
    let mut workbook = open_workbook_auto_from_rs(Cursor::new(bytes)).map_err(|error| {
        let text = error.to_string();
        if text.to_ascii_lowercase().contains("password") || text.contains("encrypt") {
            DocumentError::Encrypted {
                name: name.to_owned(),
            }
        } else {
            invalid(text)
        }
    })?;
    for sheet in workbook.sheet_names() {
        out.part(Some(&sheet));
        if out.full() {
            continue;
        }
        let range = workbook
            .worksheet_range(&sheet)
            .map_err(|error| invalid(format!("sheet \"{sheet}\": {error}")))?;
        for row in range.rows() {
            if out.full() {
                break;
            }
            let used = row
                .iter()
                .rposition(|cell| !matches!(cell, Data::Empty))
                .map_or(0, |last| last + 1);
            let line: Vec<String> = row[..used].iter().map(cell_text).collect();
            out.push(&line.join("\t"));
            out.push("\n");
        }
    }
    Ok(())
}

/// A cell as one field of a tab-separated line: tabs and line breaks inside become spaces.
fn cell_text(cell: &Data) -> String {
    let text = match cell {
        Data::Empty => String::new(),
        other => other.to_string(),
    };
    text.replace(['\t', '\n', '\r'], " ")
}
