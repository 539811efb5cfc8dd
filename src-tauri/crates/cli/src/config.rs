//! Where Arbor keeps its data: the session API's data folder, with the CLI's flag.

use std::path::{Path, PathBuf};

use anyhow::Context;
use arbor_app::catalog::Catalog;
use arbor_app::{resolve_data_dir, AppError};

/// `--data-dir`, else `$ARBOR_DATA_DIR`, else the OS data folder (`~/.local/share/arbor` on Linux).
pub fn data_dir(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
    resolve_data_dir(flag).map_err(|error| match error {
        AppError::NoDataDir => {
            anyhow::anyhow!("cannot find the OS data folder: set ARBOR_DATA_DIR or pass --data-dir")
        }
        other => other.into(),
    })
}

pub fn load_catalog(data_dir: &Path) -> anyhow::Result<Catalog> {
    Catalog::load(data_dir).context("loading the model catalogue")
}
