//! Output caps shared by the tools, so every cut is made (and announced) the same way.

/// At most this many lines of output reach the model from `read` and `bash`.
pub const MAX_OUTPUT_LINES: usize = 2000;
/// At most this many bytes of output reach the model from any tool (50 KiB).
pub const MAX_OUTPUT_BYTES: usize = 50 * 1024;

/// Cuts `line` to at most `max_chars` characters; `None` when it already fits.
pub(crate) fn cut_line(line: &str, max_chars: usize) -> Option<&str> {
    let (end, _) = line.char_indices().nth(max_chars)?;
    Some(&line[..end])
}

/// The end of a text, cut to a number of lines and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tail {
    pub text: String,
    /// Complete lines in the input (a final line without a newline counts).
    pub total_lines: usize,
    /// Lines kept (a partly kept line counts).
    pub shown_lines: usize,
    pub cut: bool,
}

/// Keeps the last `max_lines` lines of `text`, and no more than `max_bytes` bytes.
pub(crate) fn tail(text: &str, max_lines: usize, max_bytes: usize) -> Tail {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<&str> = if body.is_empty() {
        Vec::new()
    } else {
        body.split('\n').collect()
    };
    let total_lines = lines.len();
    let mut start = total_lines;
    let mut bytes = 0;
    while start > 0 && total_lines - start < max_lines {
        let len = lines[start - 1].len() + 1;
        if bytes + len > max_bytes {
            break;
        }
        bytes += len;
        start -= 1;
    }
    if start == 0 {
        return Tail {
            text: body.to_string(),
            total_lines,
            shown_lines: total_lines,
            cut: false,
        };
    }
    if start == total_lines {
        // Not even the last line fits: keep its end.
        let last = lines[total_lines - 1];
        let mut from = last.len().saturating_sub(max_bytes);
        while !last.is_char_boundary(from) {
            from += 1;
        }
        return Tail {
            text: last[from..].to_string(),
            total_lines,
            shown_lines: 1,
            cut: true,
        };
    }
    Tail {
        text: lines[start..].join("\n"),
        total_lines,
        shown_lines: total_lines - start,
        cut: true,
    }
}

/// Joins output lines until `max_bytes` would be passed; returns the text and how many lines fit.
pub(crate) fn join_within(lines: &[String], max_bytes: usize) -> (String, usize) {
    let mut text = String::new();
    let mut count = 0;
    for line in lines {
        if text.len() + line.len() + 1 > max_bytes {
            break;
        }
        if count > 0 {
            text.push('\n');
        }
        text.push_str(line);
        count += 1;
    }
    (text, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_line_respects_characters() {
        assert_eq!(cut_line("héllo", 2), Some("hé"));
        assert_eq!(cut_line("hé", 2), None);
    }

    #[test]
    fn tail_keeps_the_last_lines_within_both_caps() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(
            tail(text, 2, 100),
            Tail {
                text: "c\nd".into(),
                total_lines: 4,
                shown_lines: 2,
                cut: true
            }
        );
        assert_eq!(tail(text, 10, 4).text, "c\nd");
        assert!(!tail(text, 10, 100).cut);
        assert_eq!(tail("abcdef", 10, 3).text, "def");
        assert_eq!(tail("", 10, 3).total_lines, 0);
    }
}
