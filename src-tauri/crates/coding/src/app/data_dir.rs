//! Where Arbor keeps its data (`arbor.db`, `models.json`): one folder shared by the desktop app
//! and the CLI, so both see the same projects and sessions.

use std::path::{Path, PathBuf};

use super::AppError;

/// The environment variable that overrides the data folder.
pub const DATA_DIR_ENV: &str = "ARBOR_DATA_DIR";

/// `explicit` (the CLI's `--data-dir`), else `$ARBOR_DATA_DIR`, else the OS data folder
/// (`~/.local/share/arbor` on Linux, `~/Library/Application Support/arbor` on macOS,
/// `%APPDATA%\arbor` on Windows).
pub fn resolve_data_dir(explicit: Option<&Path>) -> Result<PathBuf, AppError> {
    if let Some(dir) = explicit {
        return Ok(dir.to_owned());
    }
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::data_dir()
        .map(|dir| dir.join("arbor"))
        .ok_or(AppError::NoDataDir)
}
