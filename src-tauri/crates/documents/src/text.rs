//! The text a document becomes: a heading line, a marker before each part, the parts' text,
//! capped as it is written.

use crate::DocumentKind;

/// A document read as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentText {
    /// The heading, the markers and the parts' text.
    pub text: String,
    /// Pages, slides or sheets seen (also those past the cap).
    pub parts: usize,
    /// Characters of text left out by the cap.
    pub omitted_chars: usize,
}

/// Writes a document's text, stopping at the cap and counting what it left out.
pub(crate) struct Writer {
    kind: DocumentKind,
    name: String,
    body: String,
    chars: usize,
    max_chars: usize,
    omitted: usize,
    parts: usize,
}

impl Writer {
    pub(crate) fn new(name: &str, kind: DocumentKind, max_chars: usize) -> Self {
        Self {
            kind,
            name: name.to_owned(),
            body: String::new(),
            chars: 0,
            max_chars,
            omitted: 0,
            parts: 0,
        }
    }

    /// Starts the next part: `label` is a sheet's name, or `None` to number it.
    pub(crate) fn part(&mut self, label: Option<&str>) {
        self.parts += 1;
        let marker = match label {
            Some(label) => format!(
                "--- {} \"{}\" ---\n",
                self.kind.part_name(),
                one_line(label)
            ),
            None => format!("--- {} {} ---\n", self.kind.part_name(), self.parts),
        };
        // Markers are not counted against the cap: past it, parts are only counted.
        if self.full() {
            return;
        }
        if !self.body.is_empty() && !self.body.ends_with('\n') {
            self.body.push('\n');
        }
        self.body.push_str(&marker);
    }

    /// Appends text to the current part.
    pub(crate) fn push(&mut self, text: &str) {
        if self.omitted > 0 {
            self.omitted += text.chars().count();
            return;
        }
        let count = text.chars().count();
        if self.chars + count <= self.max_chars {
            self.body.push_str(text);
            self.chars += count;
            return;
        }
        let room = self.max_chars - self.chars;
        let cut = text
            .char_indices()
            .nth(room)
            .map_or(text.len(), |(index, _)| index);
        self.body.push_str(&text[..cut]);
        self.chars = self.max_chars;
        self.omitted = count - room;
    }

    /// Whether more text would only be counted.
    pub(crate) fn full(&self) -> bool {
        self.omitted > 0
    }

    pub(crate) fn finish(self) -> DocumentText {
        let plural = if self.parts == 1 { "" } else { "s" };
        let mut text = format!(
            "[{}: {}, {} {}{plural}]\n",
            one_line(&self.name),
            self.kind.label(),
            self.parts,
            self.kind.part_name()
        );
        text.push_str(self.body.trim_end());
        text.push('\n');
        if self.omitted > 0 {
            text.push_str(&format!(
                "[… {} more characters not shown: the document is longer than the {} characters \
                 read at once]\n",
                self.omitted, self.max_chars
            ));
        }
        DocumentText {
            text,
            parts: self.parts,
            omitted_chars: self.omitted,
        }
    }
}

/// A name or label on one line: a hostile name cannot forge a marker of its own.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_number_the_parts_and_the_cap_counts_what_it_left_out() {
        let mut out = Writer::new("spec.pdf", DocumentKind::Pdf, 12);
        out.part(None);
        out.push("first page");
        out.part(None);
        out.push("second page");
        let done = out.finish();
        assert_eq!(done.parts, 2);
        assert!(
            done.text.starts_with("[spec.pdf: PDF, 2 pages]\n"),
            "{}",
            done.text
        );
        assert!(
            done.text
                .contains("--- page 1 ---\nfirst page\n--- page 2 ---\nse\n"),
            "{}",
            done.text
        );
        assert!(done.omitted_chars > 0);
        assert!(
            done.text.contains("more characters not shown"),
            "{}",
            done.text
        );
    }

    #[test]
    fn a_name_with_a_newline_cannot_forge_a_marker() {
        let mut out = Writer::new("x\n--- page 9 ---", DocumentKind::Spreadsheet, 1000);
        out.part(Some("Q1\n--- sheet \"fake\" ---"));
        let done = out.finish();
        assert_eq!(
            done.text.lines().filter(|l| l.starts_with("---")).count(),
            1
        );
        assert!(!done.text.lines().next().unwrap_or("").contains('\n'));
    }
}
