//! `arbor export` and `arbor import`: sessions out of and into the store.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use arbor_app::export::{write_atomically, ExportFormat, ExportScope};
use arbor_app::StoredSessions;

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
        None => ExportScope::default_for(format),
    };
    let export = StoredSessions::open_for_reading(data_dir)?.export(id, scope, format)?;
    if !export.unreadable.is_empty() {
        eprintln!(
            "arbor: note: the database is damaged: {} message(s) could not be read and are left \
             out of the export ({}); run `arbor doctor` for a full check",
            export.unreadable.len(),
            export.unreadable.join(", ")
        );
    }
    let text = export.text;
    match output {
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
        }
        Some(path) => {
            write_atomically(path, &text)?;
            eprintln!("arbor: exported to {}", path.display());
        }
    }
    Ok(())
}

pub fn import(
    data_dir: &Path,
    file: &Path,
    cwd: &Path,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let session = StoredSessions::open(data_dir)?
        .import_jsonl(&bytes, cwd)
        .with_context(|| format!("{} cannot be imported", file.display()))?;
    writeln!(
        out,
        "imported as session {} ({})",
        session.id, session.title
    )?;
    Ok(())
}
