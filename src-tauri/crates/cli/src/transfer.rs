//! `arbor export` and `arbor import`: sessions out of and into the store.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use arbor_coding::export::{export_session, import_jsonl, ExportFormat, ExportScope};
use arbor_store::Store;

use crate::args::ScopeArg;

/// Writes the export to `output` (atomically: a temp file in the same folder, then a rename, so
/// an interrupted export never leaves half a file) or to stdout.
pub fn export(
    data_dir: &Path,
    id: &str,
    format: ExportFormat,
    scope: Option<ScopeArg>,
    output: Option<&Path>,
) -> anyhow::Result<()> {
    let scope = match scope {
        Some(ScopeArg::Branch) => ExportScope::CurrentBranch,
        Some(ScopeArg::Tree) => ExportScope::WholeTree,
        // JSONL is the lossless format and the HTML page shows the tree: both take every branch.
        None if format == ExportFormat::Markdown => ExportScope::CurrentBranch,
        None => ExportScope::WholeTree,
    };
    let store = Store::open(data_dir)?;
    let text = export_session(&store, id, scope, format)?;
    match output {
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
        }
        Some(path) => {
            write_atomically(path, &text).map_err(anyhow::Error::msg)?;
            eprintln!("arbor: exported to {}", path.display());
        }
    }
    Ok(())
}

/// Writes through a temp file in the same folder and a rename: never half a file.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(folder)
        .map_err(|error| format!("cannot write in {}: {error}", folder.display()))?;
    file.write_all(text.as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    file.persist(path)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(())
}

pub fn import(
    data_dir: &Path,
    file: &Path,
    cwd: &Path,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let store = Store::open(data_dir)?;
    let session = import_jsonl(&store, &bytes, cwd)
        .with_context(|| format!("{} cannot be imported", file.display()))?;
    writeln!(
        out,
        "imported as session {} ({})",
        session.id, session.title
    )?;
    Ok(())
}
