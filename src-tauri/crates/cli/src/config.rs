//! Where Arbor keeps its data: the session API's data folder, with the CLI's flag.

use std::path::{Path, PathBuf};

use anyhow::Context;
use arbor_app::{resolve_data_dir, AppError};
use arbor_llm::catalog::Catalog;
use arbor_store::Store;

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

/// The store for a command that only reads (sessions, tree, search, export): opened read-only,
/// so a read-only data folder or a damaged database still answers; a data folder with no
/// database yet is created as usual (there is nothing to read, and nothing is lost).
pub fn open_store_for_reading(data_dir: &Path) -> anyhow::Result<Store> {
    if data_dir.join(arbor_store::DB_FILE_NAME).is_file() {
        Ok(Store::open_read_only(data_dir)?)
    } else {
        Ok(Store::open(data_dir)?)
    }
}
