//! Turning located edits into the new content: overlap checks, line-ending adaptation, and the
//! line numbers each replacement ends up on.

use std::ops::Range;

use super::matching::line_of;

/// One region of the original to replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    /// Index of the edit (0-based) this came from, for messages.
    pub edit: usize,
    pub range: Range<usize>,
    pub new_text: String,
}

/// Two edits that touch the same bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Overlap {
    pub first_edit: usize,
    pub second_edit: usize,
    /// 1-based line in the original where they meet.
    pub line: usize,
}

/// Where a replacement landed in the new content (1-based, inclusive lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChangedLines {
    pub first: usize,
    pub last: usize,
}

/// Applies `replacements` (any order) to `original`. Bytes outside the ranges are copied as they
/// are. Fails when two ranges overlap.
pub(crate) fn apply(
    original: &str,
    mut replacements: Vec<Replacement>,
) -> Result<(String, Vec<ChangedLines>), Overlap> {
    replacements.sort_by_key(|r| (r.range.start, r.range.end));
    for pair in replacements.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        // Touching is fine (`a` ends where `b` starts); sharing a byte is not. Two insertions at
        // the same point cannot happen: old_text is never empty.
        if b.range.start < a.range.end {
            return Err(Overlap {
                first_edit: a.edit.min(b.edit),
                second_edit: a.edit.max(b.edit),
                line: line_of(original, b.range.start),
            });
        }
    }
    let mut output = String::with_capacity(original.len());
    let mut spans = Vec::with_capacity(replacements.len());
    let mut copied_up_to = 0;
    for replacement in &replacements {
        output.push_str(&original[copied_up_to..replacement.range.start]);
        let region = &original[replacement.range.clone()];
        let new_text = adapt_line_endings(&replacement.new_text, region, original);
        let start = output.len();
        output.push_str(&new_text);
        spans.push(start..output.len());
        copied_up_to = replacement.range.end;
    }
    output.push_str(&original[copied_up_to..]);

    // Line numbers in one pass over the output, rather than a scan per replacement.
    let mut changed = Vec::with_capacity(spans.len());
    let mut line = 1;
    let mut scanned = 0;
    let bytes = output.as_bytes();
    let advance_to = |offset: usize, line: &mut usize, scanned: &mut usize| {
        *line += bytes[*scanned..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        *scanned = offset;
    };
    for span in spans {
        advance_to(span.start, &mut line, &mut scanned);
        let first = line;
        let last_byte = span.end.saturating_sub(1).max(span.start);
        advance_to(last_byte, &mut line, &mut scanned);
        changed.push(ChangedLines { first, last: line });
    }
    Ok((output, changed))
}

/// Gives `new_text` the line endings of the region it replaces (or, for a single-line region,
/// of the file), so an LF `new_text` written into a CRLF file gets CRLF.
fn adapt_line_endings(new_text: &str, region: &str, original: &str) -> String {
    if !new_text.contains('\n') {
        return new_text.to_string();
    }
    let crlf = if region.contains('\n') {
        uses_crlf(region)
    } else {
        uses_crlf(original)
    };
    let lf_only = new_text.replace("\r\n", "\n");
    if crlf {
        lf_only.replace('\n', "\r\n")
    } else {
        lf_only
    }
}

/// Whether most line breaks in `text` are CRLF.
fn uses_crlf(text: &str) -> bool {
    let newlines = text.bytes().filter(|&b| b == b'\n').count();
    let crlf = text.matches("\r\n").count();
    newlines > 0 && crlf * 2 > newlines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replacement(edit: usize, range: Range<usize>, new_text: &str) -> Replacement {
        Replacement {
            edit,
            range,
            new_text: new_text.to_string(),
        }
    }

    #[test]
    fn applies_in_any_order_and_reports_lines() {
        let original = "a\nb\nc\nd\n";
        let (output, changed) = apply(
            original,
            vec![replacement(1, 6..7, "D1\nD2"), replacement(0, 0..1, "A")],
        )
        .unwrap();
        assert_eq!(output, "A\nb\nc\nD1\nD2\n");
        assert_eq!(
            changed,
            vec![
                ChangedLines { first: 1, last: 1 },
                ChangedLines { first: 4, last: 5 }
            ]
        );
    }

    #[test]
    fn overlapping_regions_are_refused() {
        let overlap = apply(
            "abc\ndef\n",
            vec![replacement(0, 0..5, "x"), replacement(1, 4..6, "y")],
        )
        .unwrap_err();
        assert_eq!(
            overlap,
            Overlap {
                first_edit: 0,
                second_edit: 1,
                line: 2
            }
        );
    }

    #[test]
    fn new_text_takes_the_crlf_of_the_file() {
        let original = "one\r\ntwo\r\nthree\r\n";
        let (output, _) = apply(original, vec![replacement(0, 5..8, "2\n2b")]).unwrap();
        assert_eq!(output, "one\r\n2\r\n2b\r\nthree\r\n");
    }
}
