//! The recorded provider streams and error bodies the suites check against.
//!
//! They live in the repository, in `tests/fixtures/providers/` (provenance in its `SOURCES.md`,
//! the expected extraction in `EXPECTED.json`), so a clone with nothing beside it tests itself.
//! Every suite that reads them goes through [`provider_fixtures_dir`]; a missing folder is an
//! error, never a reason to skip.

use std::path::{Path, PathBuf};

/// The provider fixtures folder could not be found.
#[derive(Debug, thiserror::Error)]
#[error(
    "provider fixtures not found at {} (they belong in tests/fixtures/providers/ of the repository)",
    path.display()
)]
pub struct FixturesMissing {
    /// Where they were looked for.
    pub path: PathBuf,
}

/// `<repository>/tests/fixtures/providers`, checked to hold `EXPECTED.json` and `SOURCES.md`.
pub fn provider_fixtures_dir() -> Result<PathBuf, FixturesMissing> {
    // This crate sits at `<repository>/src-tauri/crates/test-support`.
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let dir = repository.join("tests/fixtures/providers");
    let complete = dir.join("EXPECTED.json").is_file() && dir.join("SOURCES.md").is_file();
    if !complete {
        return Err(FixturesMissing { path: dir });
    }
    Ok(dir.canonicalize().unwrap_or(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixtures_are_found_inside_the_repository() {
        let dir = provider_fixtures_dir().unwrap();
        let repository = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../..")
            .canonicalize()
            .unwrap();
        assert!(dir.starts_with(&repository), "{}", dir.display());
        assert!(dir.join("anthropic").is_dir());
    }
}
