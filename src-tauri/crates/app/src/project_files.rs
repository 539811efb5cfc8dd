//! The project's files as a live session's front end shows them: the composer's `@` finder,
//! the files panel and its preview, and a mentioned file attached to a message.
//!
//! The user's own view of their project, not a tool's: no permission dialog, but the same
//! walls — nothing outside the folder the session works in, nothing of Arbor's own data,
//! nothing under the settings' secret paths, and known keys redacted from what is shown.

use std::path::Path;
use std::sync::Arc;

use arbor_files::{Excluded, FileIndex, FilesError};
use arbor_protocol::views::attachments::DocumentAttachment;
use arbor_protocol::views::files::{FileMatch, FilePreview, FolderListing};

use crate::documents::{MAX_ATTACHED_DOCUMENT_BYTES, MAX_ATTACHED_DOCUMENT_CHARS};
use crate::live::LiveSession;
use crate::AppError;

/// Matches a finder answers at most.
pub const MAX_FILE_MATCHES: usize = 200;

impl LiveSession {
    fn excluded(&self) -> Excluded {
        Excluded(arbor_coding::workspace::arbor_owned_paths())
    }

    fn file_index(&self) -> &Arc<FileIndex> {
        self.file_index
            .get_or_init(|| FileIndex::new(self.cwd.clone(), self.excluded()))
    }

    /// Starts walking the project for the `@` finder (in the background), so the first `@`
    /// answers from a warm index.
    pub fn warm_file_index(&self) {
        self.file_index().warm();
    }

    /// The `@` finder: files matching `query`, best first (blocks for the first walk).
    pub fn find_files(&self, query: &str, limit: usize) -> Vec<FileMatch> {
        self.file_index()
            .find(query, limit.clamp(1, MAX_FILE_MATCHES))
    }

    /// One folder of the files panel (`""` for the project itself).
    pub fn list_folder(&self, folder: &str) -> Result<FolderListing, AppError> {
        let listing = arbor_files::list_folder(&self.cwd, folder, &self.excluded())?;
        let policy = self.permissions.guard().policy();
        let root = self.cwd.canonicalize().unwrap_or_else(|_| self.cwd.clone());
        // Entries under a secret path are not listed at all.
        let entries = listing
            .entries
            .into_iter()
            .filter(|entry| policy.secret_containing(&root.join(&entry.path)).is_none())
            .collect();
        Ok(FolderListing { entries, ..listing })
    }

    /// The files panel's read-only preview of `path`, known keys redacted.
    pub fn preview_file(&self, path: &str) -> Result<FilePreview, AppError> {
        self.refuse_secret(path)?;
        let mut preview = arbor_files::preview(&self.cwd, path, &self.excluded())?;
        if let Some(text) = preview.text.take() {
            preview.text = Some(self.redactor.text(&text).into_owned());
        }
        Ok(preview)
    }

    /// A file mentioned with `@`, as a part of the message it is sent with: a document's
    /// text, or a text file's content under a heading `[path: file, N lines]`.
    pub fn mention_file(&self, path: &str) -> Result<DocumentAttachment, AppError> {
        self.refuse_secret(path)?;
        let resolved = arbor_files::resolve_inside(&self.cwd, path, &self.excluded())?;
        let io = |source| FilesError::Io {
            path: path.to_owned(),
            source,
        };
        // Looked at before opening: reading a FIFO would block for ever, and a huge file would
        // be read whole before any cap applied.
        let metadata = std::fs::metadata(&resolved).map_err(io)?;
        if !metadata.is_file() {
            return Err(AppError::Unsupported(format!(
                "{path} is not a regular file: only files can be mentioned"
            )));
        }
        if metadata.len() > MAX_ATTACHED_DOCUMENT_BYTES {
            return Err(arbor_documents::DocumentError::FileTooLarge {
                name: path.to_owned(),
                size: metadata.len(),
                limit: MAX_ATTACHED_DOCUMENT_BYTES,
            }
            .into());
        }
        let bytes = std::fs::read(&resolved).map_err(io)?;
        if arbor_documents::kind_of(path, &bytes).is_some() {
            let mut document = crate::documents::read_document(path, bytes)?;
            // The heading names the path the user mentioned, not only the file's name.
            document.name = path.to_owned();
            document.text = self.redactor.text(&document.text).into_owned();
            return Ok(document);
        }
        // The bytes already read, not the file again.
        let size = bytes.len() as u64;
        let text = match arbor_files::text_of(&bytes) {
            Some(text) if size <= MAX_ATTACHED_DOCUMENT_CHARS as u64 => text,
            found => {
                return Err(AppError::Unsupported(format!(
                    "{path} is not a text file a message can carry (it is {size} bytes{}): the \
                     model can still read it with its tools",
                    if found.is_some() { "" } else { ", not text" }
                )))
            }
        };
        let text = self.redactor.text(&text).into_owned();
        let lines = text.lines().count();
        let plural = if lines == 1 { "" } else { "s" };
        Ok(DocumentAttachment {
            name: path.to_owned(),
            label: "file".to_owned(),
            size,
            parts: u32::try_from(lines).unwrap_or(u32::MAX),
            part_name: "line".to_owned(),
            omitted_chars: 0,
            text: format!("[{path}: file, {lines} line{plural}]\n{text}"),
        })
    }

    fn refuse_secret(&self, path: &str) -> Result<(), AppError> {
        let policy = self.permissions.guard().policy();
        let joined = self.cwd.join(Path::new(path));
        let resolved = joined.canonicalize().unwrap_or(joined);
        match policy.secret_containing(&resolved) {
            Some(secret) => Err(AppError::Unsupported(format!(
                "{path} is under the secret path {}: Arbor does not show or send it",
                secret.display()
            ))),
            None => Ok(()),
        }
    }
}
