//! Locating an edit's `old_text` in the original content: exactly first, then tolerantly
//! (trailing whitespace, CRLF vs LF, Unicode quotes/dashes/spaces), always as byte ranges of the
//! original so nothing outside them is touched.

use std::ops::Range;

use crate::truncate::cut_line;

/// How an `old_text` was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatchKind {
    Exact,
    /// Only after normalising whitespace, line endings and punctuation.
    Tolerant,
}

/// The non-overlapping occurrences of `old_text` in `content`, as byte ranges of `content`: at
/// most `limit + 1` of them, so a caller can tell "more than `limit`" without the memory of
/// millions of ranges. Exact occurrences win; the tolerant search runs only when there are none.
pub(crate) fn find_occurrences(
    content: &str,
    old_text: &str,
    limit: usize,
) -> (Vec<Range<usize>>, MatchKind) {
    let exact: Vec<Range<usize>> = content
        .match_indices(old_text)
        .take(limit.saturating_add(1))
        .map(|(start, found)| start..start + found.len())
        .collect();
    if !exact.is_empty() {
        return (exact, MatchKind::Exact);
    }
    let needle = Normalized::new(old_text);
    if needle.text.is_empty() {
        return (Vec::new(), MatchKind::Tolerant);
    }
    let haystack = Normalized::new(content);
    let ranges = haystack
        .text
        .match_indices(needle.text.as_str())
        .take(limit.saturating_add(1))
        .map(|(start, found)| haystack.original_range(content, start, start + found.len()))
        .collect();
    (ranges, MatchKind::Tolerant)
}

/// Maps characters models type in place of the Unicode ones files contain (and back).
fn fold_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// A normalised copy of a text with, for each of its bytes, where in the original the
/// character it came from starts (its end is found again from the original, so one `u32` a
/// byte — five bytes of memory per byte of the file with the text — is all this costs).
struct Normalized {
    text: String,
    /// Per normalised byte: start of the original character (a folded `\r\n`: its `\r`).
    origin: Vec<u32>,
}

impl Normalized {
    fn new(original: &str) -> Self {
        let mut normalized = Self {
            text: String::with_capacity(original.len()),
            origin: Vec::with_capacity(original.len()),
        };
        let mut line_start = 0;
        while line_start < original.len() {
            let newline = original[line_start..].find('\n').map(|i| line_start + i);
            let line_end = newline.unwrap_or(original.len());
            let line = &original[line_start..line_end];
            // Trailing whitespace (and the `\r` of a CRLF) is dropped from the comparison.
            let kept = line.trim_end_matches(|c: char| c.is_whitespace() || fold_char(c) == ' ');
            for (offset, c) in kept.char_indices() {
                let start = line_start + offset;
                normalized.push(fold_char(c), start);
            }
            match newline {
                Some(newline) => {
                    let crlf = line.ends_with('\r') && kept.len() < line.len();
                    let start = if crlf { newline - 1 } else { newline };
                    normalized.push('\n', start);
                    line_start = newline + 1;
                }
                None => break,
            }
        }
        normalized
    }

    fn push(&mut self, c: char, start: usize) {
        self.text.push(c);
        for _ in 0..c.len_utf8() {
            // `edit` refuses files over 32 MiB, far below u32::MAX.
            self.origin.push(start as u32);
        }
    }

    /// The bytes of `original` (the text this was made from) that normalised bytes
    /// `start..end` came from.
    fn original_range(&self, original: &str, start: usize, end: usize) -> Range<usize> {
        let first = self.origin[start] as usize;
        let last = self.origin[end - 1] as usize;
        let last_len =
            if self.text.as_bytes()[end - 1] == b'\n' && original.as_bytes()[last] == b'\r' {
                // A `\r\n` folded into `\n`.
                2
            } else {
                original[last..].chars().next().map_or(1, char::len_utf8)
            };
        first..last + last_len
    }
}

/// 1-based line number of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Characters of a quoted line in the "closest text" message; longer lines are cut.
const MAX_QUOTED_LINE_CHARS: usize = 500;
/// Starting points scored by their whole window.
const CANDIDATE_STARTS: usize = 8;

/// The lines of `content` that look most like `old_text`: `(first line, lines)`, when anything is
/// similar enough to be worth quoting.
///
/// Streams over the lines (no list of them: a file of millions of short lines would cost far
/// more than its size) and skips lines much longer than the one compared with (one 20 MB line
/// cannot be similar, and its character pairs alone would take 160 MB).
pub(crate) fn closest_candidate(content: &str, old_text: &str) -> Option<(usize, Vec<String>)> {
    let old_lines: Vec<&str> = old_text.lines().collect();
    let (anchor_index, anchor) = old_lines
        .iter()
        .enumerate()
        .find(|(_, line)| !line.trim().is_empty())?;
    let anchor = normalize_line(anchor);
    // Score every line against the first non-blank line of old_text, then the best few starting
    // points by the whole window: linear in the file, cheap enough on an error path.
    let mut starts: Vec<(f64, usize)> = Vec::with_capacity(CANDIDATE_STARTS + 1);
    for (index, line) in content.lines().enumerate() {
        let score = bounded_similarity(&anchor, line);
        let worst = starts.last().map_or(0.0, |&(score, _)| score);
        if score > 0.0 && (starts.len() < CANDIDATE_STARTS || score > worst) {
            starts.push((score, index));
            starts.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            starts.truncate(CANDIDATE_STARTS);
        }
    }
    let window = old_lines.len().max(1);
    let mut best: Option<(f64, usize)> = None;
    for &(_, index) in &starts {
        let Some(first) = index.checked_sub(anchor_index) else {
            continue;
        };
        let score: f64 = old_lines
            .iter()
            .zip(content.lines().skip(first))
            .map(|(old, line)| bounded_similarity(&normalize_line(old), line))
            .sum::<f64>()
            / window as f64;
        if best.is_none_or(|(best_score, _)| score > best_score) {
            best = Some((score, first));
        }
    }
    let (score, first) = best?;
    if score < 0.4 {
        return None;
    }
    let lines = content
        .lines()
        .skip(first)
        .take(window)
        .map(|line| match cut_line(line, MAX_QUOTED_LINE_CHARS) {
            Some(cut) => format!("{cut}… [line cut]"),
            None => line.to_string(),
        })
        .collect();
    Some((first + 1, lines))
}

/// [`similarity`] of the normalised `wanted` with `line`, or 0 without looking when `line` is
/// so much longer that the score could not reach 0.4 anyway (2a / (a + b) < 0.4 for b > 4a).
fn bounded_similarity(wanted: &str, line: &str) -> f64 {
    if line.len() > 4 * wanted.len() + 64 {
        return 0.0;
    }
    similarity(wanted, &normalize_line(line))
}

fn normalize_line(line: &str) -> String {
    line.trim().chars().map(fold_char).collect()
}

/// Dice coefficient over character bigrams: 1.0 for equal strings, 0.0 for nothing in common.
fn similarity(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let bigrams = |s: &str| -> Vec<(char, char)> {
        let chars: Vec<char> = s.chars().collect();
        let mut pairs: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
        pairs.sort_unstable();
        pairs
    };
    let (a, b) = (bigrams(a), bigrams(b));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_matches_win() {
        let (ranges, kind) = find_occurrences("a b a", "a", 10);
        assert_eq!((ranges, kind), (vec![0..1, 4..5], MatchKind::Exact));
    }

    #[test]
    fn tolerant_match_maps_back_to_original_bytes() {
        let content = "let s = “hi”;  \r\nnext\r\n";
        let (ranges, kind) = find_occurrences(content, "let s = \"hi\";\nnext", 10);
        assert_eq!(kind, MatchKind::Tolerant);
        assert_eq!(ranges.len(), 1);
        assert_eq!(&content[ranges[0].clone()], "let s = “hi”;  \r\nnext");
    }

    #[test]
    fn trailing_whitespace_outside_the_match_is_not_taken() {
        let content = "foo  \nbar";
        let (ranges, _) = find_occurrences(content, "foo \t", 10);
        assert_eq!(ranges, vec![0..3]);
    }

    #[test]
    fn closest_candidate_finds_the_similar_lines() {
        let content = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
        let (line, lines) =
            closest_candidate(content, "    let x = 2;\n    println!(\"{x}\");").unwrap();
        assert_eq!(line, 2);
        assert_eq!(lines, vec!["    let x = 1;", "    println!(\"{x}\");"]);
        assert!(closest_candidate(content, "zzzz qqqq").is_none());
    }

    #[test]
    fn occurrences_stop_one_past_the_limit() {
        let (ranges, _) = find_occurrences(&"a".repeat(100), "a", 5);
        assert_eq!(ranges.len(), 6);
        let (ranges, kind) = find_occurrences(&"x \r\n".repeat(100), "x\n", 5);
        assert_eq!((ranges.len(), kind), (6, MatchKind::Tolerant));
        assert_eq!(ranges[0], 0..4);
    }

    #[test]
    fn a_kept_carriage_return_maps_to_one_byte() {
        let content = "a\rb\n";
        let (ranges, kind) = find_occurrences(content, "a\rb  ", 10);
        assert_eq!(kind, MatchKind::Tolerant);
        assert_eq!(ranges.len(), 1);
        assert_eq!(ranges[0], 0..3);
    }

    #[test]
    fn closest_candidate_cuts_long_lines_it_quotes() {
        let long = "y".repeat(5000);
        let content = format!("fn main() {{\n    let x = 1;\n{long}\n}}\n");
        let (line, lines) = closest_candidate(&content, "    let x = 1;\nyyyy").unwrap();
        assert_eq!(line, 2);
        assert!(lines[1].ends_with("… [line cut]") && lines[1].len() < 600);
    }
}
