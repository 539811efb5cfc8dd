//! The unified diff `edit` hands to user interfaces, capped: a one-line 20 MB file (minified
//! code, a data dump) must not put its whole content, twice, into the tool result and the
//! session node it is stored in.

use std::fmt::Write as _;
use std::time::Duration;

use similar::TextDiff;

use crate::truncate::cut_line;

/// Lines of context around each change.
const CONTEXT_LINES: usize = 3;
/// The diff stops before it grows past this many bytes (64 KiB); `Diff::truncated` says so.
pub const MAX_DIFF_BYTES: usize = 64 * 1024;
/// A diff line longer than this many characters is cut (its end replaced by a marker).
pub const MAX_DIFF_LINE_CHARS: usize = 1000;

/// A unified diff, possibly cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Diff {
    pub text: String,
    /// Whether lines were cut or the diff stopped at [`MAX_DIFF_BYTES`].
    pub truncated: bool,
}

/// A unified diff of `before` → `after` with 3 lines of context, labelled with `path`, within
/// [`MAX_DIFF_BYTES`] and [`MAX_DIFF_LINE_CHARS`].
///
/// Only the window that differs (plus context) is diffed, and hunk headers are shifted back to
/// whole-file line numbers: tokenising a 10 MB file for a one-line edit would dominate the edit.
/// The text is written change by change rather than rendered whole and cut afterwards, so a
/// huge change never exists in memory as diff text.
pub(crate) fn unified_diff(path: &str, before: &str, after: &str) -> Diff {
    let (start, before_end, after_end) = changed_window(before, after);
    let line_offset = before.as_bytes()[..start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let diff = TextDiff::configure()
        // A diff is a courtesy for the UI: on pathological inputs, a coarser one soon is better.
        .timeout(Duration::from_secs(1))
        .diff_lines(&before[start..before_end], &after[start..after_end]);
    let newline_terminated = diff.newline_terminated();
    let mut out = Capped::default();
    let mut first = true;
    'hunks: for hunk in diff
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .iter_hunks()
    {
        if first {
            first = false;
            if !out.push(&format!("--- a/{path}\n+++ b/{path}\n")) {
                break;
            }
        }
        let header = hunk.header().to_string();
        let header = shift_hunk_header(&header, line_offset).unwrap_or(header);
        if !out.push(&format!("{header}\n")) {
            break;
        }
        for change in hunk.iter_changes() {
            let value = change.value();
            let (body, newline) = match value.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (value, ""),
            };
            let mut line = change.tag().to_string();
            match cut_line(body, MAX_DIFF_LINE_CHARS) {
                Some(cut) => {
                    out.lines_cut = true;
                    let _ = write!(
                        line,
                        "{cut}… [line cut: {} more bytes]",
                        body.len() - cut.len()
                    );
                }
                None => line.push_str(body),
            }
            line.push_str(newline);
            if !newline_terminated {
                line.push('\n');
            } else if change.missing_newline() {
                line.push_str("\n\\ No newline at end of file\n");
            }
            if !out.push(&line) {
                break 'hunks;
            }
        }
    }
    out.finish()
}

/// Diff text that stops before [`MAX_DIFF_BYTES`].
#[derive(Default)]
struct Capped {
    text: String,
    full: bool,
    lines_cut: bool,
}

impl Capped {
    /// Appends `piece` if it fits; `false` (and nothing appended) once the cap is reached.
    fn push(&mut self, piece: &str) -> bool {
        if self.full || self.text.len() + piece.len() > MAX_DIFF_BYTES {
            self.full = true;
            return false;
        }
        self.text.push_str(piece);
        true
    }

    fn finish(mut self) -> Diff {
        if self.full {
            // A `\` line: diff viewers (ours included) show it as a remark, not a file line.
            self.text.push_str(&format!(
                "\\ [Diff cut at {} KiB: the rest of the change is not shown.]\n",
                MAX_DIFF_BYTES / 1024
            ));
        }
        Diff {
            text: self.text,
            truncated: self.full || self.lines_cut,
        }
    }
}

/// Byte window `[start, before_end)` / `[start, after_end)` outside which both texts are equal,
/// widened to whole lines plus the context lines.
fn changed_window(before: &str, after: &str) -> (usize, usize, usize) {
    let (b, a) = (before.as_bytes(), after.as_bytes());
    let prefix = b.iter().zip(a).take_while(|(x, y)| x == y).count();
    let max_suffix = b.len().min(a.len()) - prefix;
    let suffix = b
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    let mut start = b[..prefix]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    for _ in 0..CONTEXT_LINES {
        if start == 0 {
            break;
        }
        start = b[..start - 1]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
    }
    // The suffix is identical in both, so extending the end over it gives the same distance
    // from the end in both texts.
    let mut end = b.len() - suffix;
    for _ in 0..=CONTEXT_LINES {
        match b[end..].iter().position(|&c| c == b'\n') {
            Some(i) => end += i + 1,
            None => {
                end = b.len();
                break;
            }
        }
    }
    let tail = b.len() - end;
    (start, end, a.len() - tail)
}

/// `@@ -a,b +c,d @@` with `offset` added to `a` and `c`.
fn shift_hunk_header(line: &str, offset: usize) -> Option<String> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, tail) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let shift = |range: &str| -> Option<String> {
        let (first, count) = match range.split_once(',') {
            Some((first, count)) => (first, Some(count)),
            None => (range, None),
        };
        let first: usize = first.parse().ok()?;
        Some(match count {
            Some(count) => format!("{},{count}", first + offset),
            None => (first + offset).to_string(),
        })
    };
    Some(format!("@@ -{} +{} @@{tail}", shift(old)?, shift(new)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_only_the_changed_hunk() {
        let diff = unified_diff("f.txt", "a\nb\nc\n", "a\nB\nc\n");
        assert!(!diff.truncated);
        assert_eq!(
            diff.text,
            "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
    }

    #[test]
    fn windowed_diff_equals_the_whole_file_diff() {
        let before: String = (1..=40).map(|n| format!("line {n}\n")).collect();
        let cases = [
            before.replace("line 20\n", "LINE 20\nextra\n"),
            before.replace("line 1\n", ""),
            before.replace("line 40\n", "last"),
            before
                .replace("line 5\n", "five\n")
                .replace("line 30\n", ""),
            format!("{before}more\n"),
        ];
        for after in cases {
            let whole = TextDiff::from_lines(&before, &after)
                .unified_diff()
                .context_radius(3)
                .header("a/f", "b/f")
                .to_string();
            assert_eq!(unified_diff("f", &before, &after).text, whole);
        }
        // Without a final newline the hint line must come out as similar writes it.
        for (before, after) in [("a\nb\nc", "a\nB\nc"), ("a\nb\nc\n", "a\nb\nC")] {
            let whole = TextDiff::from_lines(before, after)
                .unified_diff()
                .context_radius(3)
                .header("a/f", "b/f")
                .to_string();
            assert_eq!(unified_diff("f", before, after).text, whole);
        }
    }

    #[test]
    fn a_huge_single_line_change_is_cut() {
        let before = "x".repeat(5_000_000);
        let after = format!("{before}y");
        let diff = unified_diff("min.js", &before, &after);
        assert!(diff.truncated);
        assert!(
            diff.text.len() < 4 * MAX_DIFF_LINE_CHARS,
            "{}",
            diff.text.len()
        );
        assert!(diff.text.contains("… [line cut: 4999000 more bytes]"));
    }

    #[test]
    fn a_huge_many_line_change_stops_at_the_cap() {
        let before: String = (0..100_000).map(|n| format!("line {n}\n")).collect();
        let after = before.replace("line ", "LINE ");
        let diff = unified_diff("f", &before, &after);
        assert!(diff.truncated);
        assert!(diff.text.len() <= MAX_DIFF_BYTES + 200);
        assert!(diff
            .text
            .ends_with("\\ [Diff cut at 64 KiB: the rest of the change is not shown.]\n"));
    }
}
