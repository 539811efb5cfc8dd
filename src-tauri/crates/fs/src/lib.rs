//! `arbor-fs` — atomic file replacement, the one helper every writer in Arbor uses (the `write` and
//! `edit` tools, settings, `models.json`, exports, redacted output files): a temporary file in
//! the same folder (named `.NAME.XXXXXX.arbor-tmp`, which snapshots skip and a later start
//! removes if a kill left it), synced, then renamed over the target, so a crash or a
//! concurrent reader never sees half a file.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically. An existing file keeps its permissions (and a symlink
/// keeps pointing where it did: its target is replaced); a new file gets the usual `0666 & !umask`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = resolve_symlink(path)?;
    let dir = target
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    let existing_permissions = fs::metadata(&target).ok().map(|m| m.permissions());
    let file_name = target
        .file_name()
        .map(|name| name.to_string_lossy().to_string())
        .unwrap_or_default();
    let prefix = format!(".{file_name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".arbor-tmp");
    // Applied through open(2), so the umask shapes it like any newly created file (tempfile's
    // own default is 0600). Other systems have no mode bits to set.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    temp.write_all(bytes)?;
    if let Some(permissions) = existing_permissions {
        temp.as_file().set_permissions(permissions)?;
    }
    temp.as_file().sync_all()?;
    temp.persist(&target).map_err(|error| error.error)?;
    Ok(())
}

fn resolve_symlink(path: &Path) -> io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}
