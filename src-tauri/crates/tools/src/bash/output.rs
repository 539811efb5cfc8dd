//! What a command printed: kept in memory while it fits the caps, spilled to a log file (whose
//! path the model is given) as soon as it is clear the output will be cut.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;

use crate::truncate::{self, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES};
use arbor_secrets::Redactor;

/// Bytes of the end kept in memory once spilled: enough for the 50 KiB tail, plus slack to find a
/// line start.
const TAIL_KEEP_BYTES: usize = MAX_OUTPUT_BYTES + 16 * 1024;

#[derive(Debug, Default)]
pub(crate) struct OutputLog {
    /// All output while not spilled; the last [`TAIL_KEEP_BYTES`]-ish bytes afterwards.
    kept: Vec<u8>,
    /// Whether `kept` lost its beginning (its first line may be partial).
    kept_is_tail: bool,
    total_bytes: usize,
    newlines: usize,
    spill: Option<(PathBuf, File)>,
}

/// The output as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FinalOutput {
    pub text: String,
    /// The full log, when the text is only its tail.
    pub full_output_path: Option<PathBuf>,
}

impl OutputLog {
    pub fn push(&mut self, chunk: &[u8]) -> io::Result<()> {
        self.total_bytes += chunk.len();
        self.newlines += chunk.iter().filter(|&&b| b == b'\n').count();
        if let Some((_, file)) = &mut self.spill {
            file.write_all(chunk)?;
        }
        self.kept.extend_from_slice(chunk);
        if self.spill.is_none()
            && (self.total_bytes > MAX_OUTPUT_BYTES || self.newlines > MAX_OUTPUT_LINES)
        {
            let (mut file, path) = tempfile::Builder::new()
                .prefix("arbor-bash-")
                .suffix(".log")
                .tempfile()?
                .keep()
                .map_err(|error| error.error)?;
            file.write_all(&self.kept)?;
            self.spill = Some((path, file));
        }
        if self.spill.is_some() && self.kept.len() > 2 * TAIL_KEEP_BYTES {
            let excess = self.kept.len() - TAIL_KEEP_BYTES;
            self.kept.drain(..excess);
            self.kept_is_tail = true;
        }
        Ok(())
    }

    /// The text for the model: everything, or the tail with a notice naming the full log.
    pub fn finish(mut self) -> FinalOutput {
        if let Some((_, file)) = &mut self.spill {
            let _ = file.flush();
        }
        let mut kept = self.kept.as_slice();
        if self.kept_is_tail {
            // Drop the partial first line (and any split character with it).
            if let Some(newline) = kept.iter().position(|&b| b == b'\n') {
                kept = &kept[newline + 1..];
            }
        }
        let text = String::from_utf8_lossy(kept);
        let tail = truncate::tail(&text, MAX_OUTPUT_LINES, MAX_OUTPUT_BYTES);
        let Some((path, _)) = self.spill else {
            return FinalOutput {
                text: tail.text,
                full_output_path: None,
            };
        };
        let total_lines = self.newlines + usize::from(!text.ends_with('\n') && !text.is_empty());
        let first_shown = total_lines + 1 - tail.shown_lines.min(total_lines);
        let notice = format!(
            "[Output cut to its last {MAX_OUTPUT_LINES} lines / {} KiB: showing lines \
             {first_shown}-{total_lines} of {total_lines}. Full output: {} (use read with offset, \
             or grep, to see the rest).]",
            MAX_OUTPUT_BYTES / 1024,
            path.display()
        );
        FinalOutput {
            text: format!("{notice}\n{}", tail.text),
            full_output_path: Some(path),
        }
    }
}

/// Turns a byte stream into UTF-8 text chunks without splitting a character across chunks.
#[derive(Debug, Default)]
pub(crate) struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    pub fn push(&mut self, chunk: &[u8]) -> String {
        self.pending.extend_from_slice(chunk);
        let complete = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            // An incomplete character at the end waits for the next chunk.
            Err(error) if error.error_len().is_none() => error.valid_up_to(),
            Err(_) => incomplete_suffix_start(&self.pending),
        };
        let text = String::from_utf8_lossy(&self.pending[..complete]).into_owned();
        self.pending.drain(..complete);
        text
    }
}

/// Where a trailing, possibly incomplete UTF-8 sequence starts (the length when there is none).
fn incomplete_suffix_start(bytes: &[u8]) -> usize {
    for back in 1..=3.min(bytes.len()) {
        let index = bytes.len() - back;
        let byte = bytes[index];
        if byte & 0b1100_0000 != 0b1000_0000 {
            let needed = match byte {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if needed > back { index } else { bytes.len() };
        }
    }
    bytes.len()
}

/// Rewrites the saved full output at `path` without the session's secrets, when it holds any
/// (atomically: the file is never half-written).
pub(super) fn redact_saved(redactor: &Redactor, path: &std::path::Path) -> std::io::Result<()> {
    if redactor.is_empty() {
        return Ok(());
    }
    match redactor.bytes(&std::fs::read(path)?) {
        Some(redacted) => arbor_fs::write_atomic(path, redacted.as_bytes()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_stays_in_memory() {
        let mut log = OutputLog::default();
        log.push(b"hello\nworld\n").unwrap();
        assert_eq!(
            log.finish(),
            FinalOutput {
                text: "hello\nworld".into(),
                full_output_path: None
            }
        );
    }

    #[test]
    fn long_output_spills_and_keeps_the_tail() {
        let mut log = OutputLog::default();
        for n in 1..=5000 {
            log.push(format!("line {n}\n").as_bytes()).unwrap();
        }
        let output = log.finish();
        let path = output.full_output_path.clone().unwrap();
        assert!(output
            .text
            .starts_with("[Output cut to its last 2000 lines / 50 KiB: showing lines 3001-5000 of 5000. Full output: "));
        assert!(output.text.ends_with("\nline 4999\nline 5000"));
        let full = std::fs::read_to_string(&path).unwrap();
        assert_eq!(full.lines().count(), 5000);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn utf8_characters_are_not_split() {
        let mut stream = Utf8Stream::default();
        let bytes = "é".as_bytes();
        assert_eq!(stream.push(&bytes[..1]), "");
        assert_eq!(stream.push(&bytes[1..]), "é");
        assert_eq!(stream.push(b"\xff!"), "\u{fffd}!");
    }
}
