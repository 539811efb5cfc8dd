//! A read-only look at one file for the files panel.

use std::io::Read;
use std::path::Path;

use arbor_documents::{extract, image_type, kind_of, Limits};
use arbor_protocol::views::files::{FilePreview, PreviewKind};
use arbor_protocol::ImageContent;
use base64::Engine as _;

use crate::paths::{relative, resolve_inside};
use crate::{Excluded, FilesError};

/// Text shown of a file: its start.
pub const MAX_PREVIEW_BYTES: u64 = 256 * 1024;
/// Images larger than this are not shown.
const MAX_PREVIEW_IMAGE_BYTES: u64 = 5 * 1024 * 1024;
/// Characters of a document's text shown.
const MAX_PREVIEW_DOCUMENT_CHARS: usize = 200_000;

/// The preview of `path` (relative to `root`). Only regular files: a FIFO or a device would
/// block or never end, so they are refused before they are opened.
pub fn preview(root: &Path, path: &str, excluded: &Excluded) -> Result<FilePreview, FilesError> {
    let resolved = resolve_inside(root, path, excluded)?;
    let io = |source| FilesError::Io {
        path: path.to_owned(),
        source,
    };
    let metadata = std::fs::metadata(&resolved).map_err(io)?;
    if !metadata.is_file() {
        return Err(FilesError::Io {
            path: path.to_owned(),
            source: std::io::Error::other("not a regular file"),
        });
    }
    let size = metadata.len();
    let shown = root
        .canonicalize()
        .ok()
        .and_then(|root| relative(&root, &resolved))
        .unwrap_or_else(|| path.to_owned());
    let mut file = std::fs::File::open(&resolved).map_err(io)?;
    let mut head = Vec::new();
    (&mut file)
        .take(MAX_PREVIEW_BYTES)
        .read_to_end(&mut head)
        .map_err(io)?;
    let base = FilePreview {
        path: shown.clone(),
        size,
        kind: PreviewKind::Binary,
        text: None,
        truncated: false,
        image: None,
    };
    if let Some(mime_type) = image_type(&head) {
        if size > MAX_PREVIEW_IMAGE_BYTES {
            return Ok(base);
        }
        let bytes = std::fs::read(&resolved).map_err(io)?;
        return Ok(FilePreview {
            kind: PreviewKind::Image,
            image: Some(ImageContent {
                data: base64::engine::general_purpose::STANDARD.encode(bytes),
                mime_type: mime_type.to_owned(),
            }),
            ..base
        });
    }
    if let Some(kind) = kind_of(&shown, &head) {
        let limits = Limits {
            max_text_chars: MAX_PREVIEW_DOCUMENT_CHARS,
            ..Limits::default()
        };
        // Refused by its size before it is read whole.
        if size > limits.max_file_bytes {
            let too_large = arbor_documents::DocumentError::FileTooLarge {
                name: shown.clone(),
                size,
                limit: limits.max_file_bytes,
            };
            return Ok(FilePreview {
                kind: PreviewKind::Document,
                text: Some(too_large.to_string()),
                ..base
            });
        }
        let bytes = std::fs::read(&resolved).map_err(io)?;
        return Ok(match extract(&shown, kind, bytes, &limits) {
            Ok(document) => FilePreview {
                kind: PreviewKind::Document,
                truncated: document.omitted_chars > 0,
                text: Some(document.text),
                ..base
            },
            // The panel says why instead of showing nothing.
            Err(error) => FilePreview {
                kind: PreviewKind::Document,
                text: Some(error.to_string()),
                ..base
            },
        });
    }
    let Some(text) = text_of(&head) else {
        return Ok(base);
    };
    Ok(FilePreview {
        kind: PreviewKind::Text,
        text: Some(text),
        truncated: size > MAX_PREVIEW_BYTES,
        ..base
    })
}

/// `bytes` as text, or `None` for a binary file (a NUL in the first 8 KiB, as `git diff`
/// decides); invalid UTF-8 replaced, a leading byte-order mark left out.
pub fn text_of(bytes: &[u8]) -> Option<String> {
    if bytes.iter().take(8 * 1024).any(|&byte| byte == 0) {
        return None;
    }
    let text = String::from_utf8_lossy(bytes);
    Some(text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_binary_images_and_big_files_are_each_shown_as_they_can_be() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.rs"), "\u{feff}fn main() {}\n").unwrap();
        std::fs::write(root.join("blob"), b"ab\x00cd").unwrap();
        std::fs::write(root.join("dot.png"), b"\x89PNG\r\n\x1a\nrest").unwrap();
        std::fs::write(
            root.join("big.txt"),
            "x".repeat(MAX_PREVIEW_BYTES as usize + 10),
        )
        .unwrap();
        let none = Excluded::default();

        let text = preview(root, "a.rs", &none).unwrap();
        assert_eq!(
            (text.kind, text.text.as_deref()),
            (PreviewKind::Text, Some("fn main() {}\n"))
        );
        assert_eq!(
            preview(root, "blob", &none).unwrap().kind,
            PreviewKind::Binary
        );
        let image = preview(root, "dot.png", &none).unwrap();
        assert_eq!(image.image.unwrap().mime_type, "image/png");
        let big = preview(root, "big.txt", &none).unwrap();
        assert!(big.truncated);
        assert_eq!(big.text.unwrap().len() as u64, MAX_PREVIEW_BYTES);
        assert!(matches!(
            preview(root, "../x", &none),
            Err(FilesError::Outside { .. })
        ));
    }

    #[test]
    fn a_huge_document_is_refused_by_its_size_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.pdf");
        std::fs::write(&path, b"%PDF-1.7\n").unwrap();
        // Sparse: 200 MB on paper, nothing on disk.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(200 * 1024 * 1024)
            .unwrap();
        let shown = preview(dir.path(), "big.pdf", &Excluded::default()).unwrap();
        assert_eq!(shown.kind, PreviewKind::Document);
        let text = shown.text.unwrap();
        assert!(text.contains("documents are read up to"), "{text}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let error = preview(dir.path(), "pipe", &Excluded::default()).unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
    }
}
