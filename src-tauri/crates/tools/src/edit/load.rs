//! Getting the file `edit` changes: only a regular file, only up to [`MAX_EDIT_FILE_BYTES`],
//! judged from its metadata before a byte is read, then read with a hard cap in case it grew in
//! between. (A 2 GB file used to be read whole, rewritten, and then cost 24 GB of memory.)

use std::io::Read;
use std::path::{Path, PathBuf};

use arbor_agent::ToolError;

use crate::{paths, special};

/// The largest file `edit` reads (32 MiB). Larger files are refused unread: `bash` (`sed -i`,
/// a script) changes them in a stream, `write` replaces them.
pub const MAX_EDIT_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// The file's bytes, or why `edit` will not touch it.
pub(crate) async fn load(path: &Path, shown: &str, cwd: &Path) -> Result<Vec<u8>, ToolError> {
    let metadata = tokio::fs::metadata(path)
        .await
        .map_err(|error| open_error(path, shown, cwd, &error))?;
    if metadata.is_dir() {
        return Err(ToolError::respond(format!(
            "{shown} is a directory; give the path of a file."
        )));
    }
    if let Some(kind) = special::special_kind(&metadata) {
        return Err(ToolError::respond(special::refusal(shown, kind)));
    }
    if metadata.len() > MAX_EDIT_FILE_BYTES {
        return Err(too_large(shown, metadata.len()));
    }
    let target = PathBuf::from(path);
    let expected = metadata.len();
    let bytes = tokio::task::spawn_blocking(move || -> std::io::Result<Vec<u8>> {
        let file = std::fs::File::open(&target)?;
        // One byte past the cap tells a file that grew since the metadata from one that fits.
        let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0) + 1);
        file.take(MAX_EDIT_FILE_BYTES + 1).read_to_end(&mut bytes)?;
        Ok(bytes)
    })
    .await
    .map_err(|error| ToolError::respond(format!("Cannot read {shown}: {error}.")))?
    .map_err(|error| open_error(path, shown, cwd, &error))?;
    if bytes.len() as u64 > MAX_EDIT_FILE_BYTES {
        return Err(too_large(shown, bytes.len() as u64));
    }
    Ok(bytes)
}

fn too_large(shown: &str, bytes: u64) -> ToolError {
    ToolError::respond(format!(
        "{shown} is {} ({bytes} bytes), more than edit's limit of {} MiB, so it was neither read \
         nor changed. To change part of it use bash, which streams it (for example \
         `sed -i 's/old/new/' {shown}`, or a short script); to replace all of it use write.",
        human_size(bytes),
        MAX_EDIT_FILE_BYTES / (1024 * 1024)
    ))
}

fn human_size(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    let bytes = bytes as f64;
    if bytes >= 1024.0 * MIB {
        format!("{:.1} GiB", bytes / (1024.0 * MIB))
    } else {
        format!("{:.1} MiB", bytes / MIB)
    }
}

fn open_error(path: &Path, shown: &str, cwd: &Path, error: &std::io::Error) -> ToolError {
    if error.kind() == std::io::ErrorKind::NotFound {
        let suggestion = paths::close_match(path)
            .map(|found| format!(" Did you mean {}?", paths::display(cwd, &found)))
            .unwrap_or_default();
        return ToolError::respond(format!(
            "File not found: {shown}.{suggestion} To create a file use write."
        ));
    }
    ToolError::respond(format!("Cannot read {shown}: {error}."))
}
