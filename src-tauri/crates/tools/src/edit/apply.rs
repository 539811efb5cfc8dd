//! Turning located edits into the new content: overlap checks, line-ending adaptation, and the
//! line numbers each replacement ends up on.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::ops::Range;

use super::matching::line_of;

/// One region of the original to replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement<'a> {
    /// Index of the edit (0-based) this came from, for messages.
    pub edit: usize,
    pub range: Range<usize>,
    /// Borrowed from the edit: `replace_all` over many occurrences must not copy it each time.
    pub new_text: &'a str,
}

/// Why the replacements could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ApplyError {
    Overlap(Overlap),
    /// The new content would exceed the cap given to [`apply`].
    TooLarge,
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

/// Applies `replacements` (any order) to `original`, after `prefix` (a BOM to keep, written here
/// so the new content is never copied again to add it). Bytes outside the ranges are copied as
/// they are. Fails when two ranges overlap, or when the result would pass `max_bytes`.
pub(crate) fn apply(
    prefix: &str,
    original: &str,
    mut replacements: Vec<Replacement<'_>>,
    max_bytes: usize,
) -> Result<(String, Vec<ChangedLines>), ApplyError> {
    replacements.sort_by_key(|r| (r.range.start, r.range.end));
    for pair in replacements.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        // Touching is fine (`a` ends where `b` starts); sharing a byte is not. Two insertions at
        // the same point cannot happen: old_text is never empty.
        if b.range.start < a.range.end {
            return Err(ApplyError::Overlap(Overlap {
                first_edit: a.edit.min(b.edit),
                second_edit: a.edit.max(b.edit),
                line: line_of(original, b.range.start),
            }));
        }
    }
    let mut output = String::with_capacity((prefix.len() + original.len()).min(max_bytes));
    output.push_str(prefix);
    let mut spans = Vec::with_capacity(replacements.len());
    let mut copied_up_to = 0;
    // Looked at once, and only if a multi-line new_text replaces a single-line region.
    let crlf_file = OnceCell::new();
    for replacement in &replacements {
        let region = &original[replacement.range.clone()];
        let new_text = adapt_line_endings(replacement.new_text, region, || {
            *crlf_file.get_or_init(|| uses_crlf(original))
        });
        let kept = &original[copied_up_to..replacement.range.start];
        if output.len() + kept.len() + new_text.len() > max_bytes {
            return Err(ApplyError::TooLarge);
        }
        output.push_str(kept);
        let start = output.len();
        output.push_str(&new_text);
        spans.push(start..output.len());
        copied_up_to = replacement.range.end;
    }
    if output.len() + original.len() - copied_up_to > max_bytes {
        return Err(ApplyError::TooLarge);
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
/// of the file: `crlf_file`), so an LF `new_text` written into a CRLF file gets CRLF.
fn adapt_line_endings<'a>(
    new_text: &'a str,
    region: &str,
    crlf_file: impl FnOnce() -> bool,
) -> Cow<'a, str> {
    if !new_text.contains('\n') {
        return Cow::Borrowed(new_text);
    }
    let crlf = if region.contains('\n') {
        uses_crlf(region)
    } else {
        crlf_file()
    };
    let lf_only = new_text.replace("\r\n", "\n");
    Cow::Owned(if crlf {
        lf_only.replace('\n', "\r\n")
    } else {
        lf_only
    })
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

    fn replacement(edit: usize, range: Range<usize>, new_text: &str) -> Replacement<'_> {
        Replacement {
            edit,
            range,
            new_text,
        }
    }

    #[test]
    fn applies_in_any_order_and_reports_lines() {
        let original = "a\nb\nc\nd\n";
        let (output, changed) = apply(
            "",
            original,
            vec![replacement(1, 6..7, "D1\nD2"), replacement(0, 0..1, "A")],
            usize::MAX,
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
            "",
            "abc\ndef\n",
            vec![replacement(0, 0..5, "x"), replacement(1, 4..6, "y")],
            usize::MAX,
        )
        .unwrap_err();
        assert_eq!(
            overlap,
            ApplyError::Overlap(Overlap {
                first_edit: 0,
                second_edit: 1,
                line: 2
            })
        );
    }

    #[test]
    fn new_text_takes_the_crlf_of_the_file() {
        let original = "one\r\ntwo\r\nthree\r\n";
        let (output, _) = apply(
            "",
            original,
            vec![replacement(0, 5..8, "2\n2b")],
            usize::MAX,
        )
        .unwrap();
        assert_eq!(output, "one\r\n2\r\n2b\r\nthree\r\n");
    }

    #[test]
    fn the_prefix_comes_first_and_the_cap_holds() {
        let (output, changed) = apply(
            "\u{feff}",
            "a\nb\n",
            vec![replacement(0, 2..3, "B")],
            usize::MAX,
        )
        .unwrap();
        assert_eq!(output, "\u{feff}a\nB\n");
        assert_eq!(changed, vec![ChangedLines { first: 2, last: 2 }]);
        let many: Vec<_> = (0..4)
            .map(|i| replacement(i, i * 2..i * 2 + 1, "xxxx"))
            .collect();
        assert_eq!(
            apply("", "a\na\na\na\n", many, 12).unwrap_err(),
            ApplyError::TooLarge
        );
    }
}
