//! The unified diff `edit` hands to user interfaces.

use std::time::Duration;

use similar::TextDiff;

/// Lines of context around each change.
const CONTEXT_LINES: usize = 3;

/// A unified diff of `before` → `after` with 3 lines of context, labelled with `path`.
///
/// Only the window that differs (plus context) is diffed, and hunk headers are shifted back to
/// whole-file line numbers: tokenising a 10 MB file for a one-line edit would dominate the edit.
pub(crate) fn unified_diff(path: &str, before: &str, after: &str) -> String {
    let (start, before_end, after_end) = changed_window(before, after);
    let line_offset = before.as_bytes()[..start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let diff = TextDiff::configure()
        // A diff is a courtesy for the UI: on pathological inputs, a coarser one soon is better.
        .timeout(Duration::from_secs(1))
        .diff_lines(&before[start..before_end], &after[start..after_end])
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    if line_offset == 0 {
        return diff;
    }
    diff.split_inclusive('\n')
        .map(|line| shift_hunk_header(line, line_offset).unwrap_or_else(|| line.to_string()))
        .collect()
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
        assert_eq!(
            diff,
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
            assert_eq!(unified_diff("f", &before, &after), whole);
        }
    }
}
