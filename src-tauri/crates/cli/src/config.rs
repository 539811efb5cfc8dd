//! Where Arbor keeps its data, and which model, endpoint and key a run uses.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use arbor_llm::catalog::Catalog;

/// `--data-dir`, else `$ARBOR_DATA_DIR`, else the OS data folder (`~/.local/share/arbor` on Linux).
pub fn data_dir(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(dir) = flag {
        return Ok(dir.to_owned());
    }
    if let Some(dir) = std::env::var_os("ARBOR_DATA_DIR").filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    match dirs::data_dir() {
        Some(dir) => Ok(dir.join("arbor")),
        None => bail!("cannot find the OS data folder: set ARBOR_DATA_DIR or pass --data-dir"),
    }
}

pub fn load_catalog(data_dir: &Path) -> anyhow::Result<Catalog> {
    Catalog::load(data_dir).context("loading the model catalogue")
}
