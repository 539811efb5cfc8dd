//! Where Arbor keeps its data (`arbor.db`, `models.json`): one folder shared by the desktop app
//! and the CLI, so both see the same projects and sessions.

use std::path::{Path, PathBuf};

use crate::AppError;

/// The environment variable that overrides the data folder.
pub const DATA_DIR_ENV: &str = "ARBOR_DATA_DIR";

/// `explicit` (the CLI's `--data-dir`), else `$ARBOR_DATA_DIR`, else the OS data folder
/// (`~/.local/share/arbor` on Linux, `~/Library/Application Support/arbor` on macOS,
/// `%APPDATA%\arbor` on Windows). A relative folder is made absolute against the current
/// directory now, as every CLI does: call this before changing directory (`arbor -C`), so
/// `--data-dir` never silently lands inside the project.
pub fn resolve_data_dir(explicit: Option<&Path>) -> Result<PathBuf, AppError> {
    let given = explicit.map(Path::to_owned).or_else(|| {
        std::env::var_os(DATA_DIR_ENV)
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
    });
    if let Some(dir) = given {
        // `absolute` fails only for an empty path, which is filtered out above.
        return Ok(std::path::absolute(&dir).unwrap_or(dir));
    }
    dirs::data_dir()
        .map(|dir| dir.join("arbor"))
        .ok_or(AppError::NoDataDir)
}
