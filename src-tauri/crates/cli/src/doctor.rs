//! `arbor doctor`: a full check of the data folder's database, read-only, with what to do.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use arbor_app::{DatabaseCheck, StoredSessions};

pub fn run(data_dir: &Path, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let (path, problems) = match StoredSessions::check_integrity(data_dir)? {
        DatabaseCheck::NoDatabase(path) => {
            writeln!(
                out,
                "{}: no database yet (nothing stored): nothing to check",
                path.display()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        DatabaseCheck::Sound(path) => {
            writeln!(
                out,
                "{}: ok (pages, indexes, full-text index)",
                path.display()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        DatabaseCheck::Damaged(path, problems) => (path, problems),
    };
    writeln!(
        out,
        "{}: damaged ({} problem(s)):",
        path.display(),
        problems.len()
    )?;
    for problem in problems.iter().take(50) {
        writeln!(out, "  {problem}")?;
    }
    if problems.len() > 50 {
        writeln!(out, "  … and {} more", problems.len() - 50)?;
    }
    writeln!(
        out,
        "What to do: export what can still be read (`arbor sessions`, then `arbor export ID \
         --output FILE`: unreadable messages are left out with a note), then move {} aside \
         (Arbor starts a new database) and import the exports with `arbor import FILE`; or \
         restore the file from a backup. Arbor refuses to write to a damaged database.",
        path.display()
    )?;
    Ok(ExitCode::from(1))
}
