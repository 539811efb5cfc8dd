//! Locating an edit's `old_text` in the original content: exactly first, then tolerantly
//! (trailing whitespace, CRLF vs LF, Unicode quotes/dashes/spaces), always as byte ranges of the
//! original so nothing outside them is touched.

use std::ops::Range;

/// How an `old_text` was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatchKind {
    Exact,
    /// Only after normalising whitespace, line endings and punctuation.
    Tolerant,
}

/// Every non-overlapping occurrence of `old_text` in `content`, as byte ranges of `content`.
/// Exact occurrences win; the tolerant search runs only when there are none.
pub(crate) fn find_occurrences(content: &str, old_text: &str) -> (Vec<Range<usize>>, MatchKind) {
    let exact: Vec<Range<usize>> = content
        .match_indices(old_text)
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
        .map(|(start, found)| haystack.original_range(start, start + found.len()))
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

/// A normalised copy of a text with, for each of its bytes, the original byte range of the
/// character it came from.
struct Normalized {
    text: String,
    /// Per normalised byte: start of the original character (u32 keeps this at 8 bytes a byte).
    origin_start: Vec<u32>,
    /// Per normalised byte: end of the original character (a folded `\r\n` spans both bytes).
    origin_end: Vec<u32>,
}

impl Normalized {
    fn new(original: &str) -> Self {
        let mut normalized = Self {
            text: String::with_capacity(original.len()),
            origin_start: Vec::with_capacity(original.len()),
            origin_end: Vec::with_capacity(original.len()),
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
                normalized.push(fold_char(c), start, start + c.len_utf8());
            }
            match newline {
                Some(newline) => {
                    let crlf = line.ends_with('\r') && kept.len() < line.len();
                    let start = if crlf { newline - 1 } else { newline };
                    normalized.push('\n', start, newline + 1);
                    line_start = newline + 1;
                }
                None => break,
            }
        }
        normalized
    }

    fn push(&mut self, c: char, start: usize, end: usize) {
        self.text.push(c);
        for _ in 0..c.len_utf8() {
            self.origin_start.push(start as u32);
            self.origin_end.push(end as u32);
        }
    }

    fn original_range(&self, start: usize, end: usize) -> Range<usize> {
        self.origin_start[start] as usize..self.origin_end[end - 1] as usize
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

/// The lines of `content` that look most like `old_text`: `(first line, lines)`, when anything is
/// similar enough to be worth quoting.
pub(crate) fn closest_candidate(content: &str, old_text: &str) -> Option<(usize, Vec<String>)> {
    let file_lines: Vec<&str> = content.lines().collect();
    let old_lines: Vec<&str> = old_text.lines().collect();
    let (anchor_index, anchor) = old_lines
        .iter()
        .enumerate()
        .find(|(_, line)| !line.trim().is_empty())?;
    let anchor = normalize_line(anchor);
    // Score every line against the first non-blank line of old_text, then the best few starting
    // points by the whole window: linear in the file, cheap enough on an error path.
    let mut starts: Vec<(f64, usize)> = file_lines
        .iter()
        .enumerate()
        .map(|(index, line)| (similarity(&anchor, &normalize_line(line)), index))
        .filter(|(score, _)| *score > 0.0)
        .collect();
    starts.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let window = old_lines.len().max(1);
    let mut best: Option<(f64, usize)> = None;
    for &(_, index) in starts.iter().take(8) {
        let Some(first) = index.checked_sub(anchor_index) else {
            continue;
        };
        let end = (first + window).min(file_lines.len());
        let score: f64 = old_lines
            .iter()
            .zip(&file_lines[first..end])
            .map(|(old, line)| similarity(&normalize_line(old), &normalize_line(line)))
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
    let end = (first + window).min(file_lines.len());
    let lines = file_lines[first..end]
        .iter()
        .map(|line| line.to_string())
        .collect();
    Some((first + 1, lines))
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
        let (ranges, kind) = find_occurrences("a b a", "a");
        assert_eq!((ranges, kind), (vec![0..1, 4..5], MatchKind::Exact));
    }

    #[test]
    fn tolerant_match_maps_back_to_original_bytes() {
        let content = "let s = “hi”;  \r\nnext\r\n";
        let (ranges, kind) = find_occurrences(content, "let s = \"hi\";\nnext");
        assert_eq!(kind, MatchKind::Tolerant);
        assert_eq!(ranges.len(), 1);
        assert_eq!(&content[ranges[0].clone()], "let s = “hi”;  \r\nnext");
    }

    #[test]
    fn trailing_whitespace_outside_the_match_is_not_taken() {
        let content = "foo  \nbar";
        let (ranges, _) = find_occurrences(content, "foo \t");
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
}
