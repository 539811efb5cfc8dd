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
///
/// The repository is found from the running test's package (`CARGO_MANIFEST_DIR` as `cargo
/// test` sets it), else from where this crate was compiled: a build folder shared by several
/// checkouts may hold this crate compiled in another one (cargo hashes path packages relative to
/// their workspace, so the artifacts are the same), and that checkout may be gone.
pub fn provider_fixtures_dir() -> Result<PathBuf, FixturesMissing> {
    let running = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    // This crate sits at `<repository>/src-tauri/crates/test-support`.
    let compiled = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let candidates = running
        .iter()
        .flat_map(|dir| dir.ancestors())
        .map(Path::to_path_buf);
    for repository in candidates.chain([compiled.clone()]) {
        let dir = repository.join("tests/fixtures/providers");
        if dir.join("EXPECTED.json").is_file() && dir.join("SOURCES.md").is_file() {
            return Ok(dir.canonicalize().unwrap_or(dir));
        }
    }
    Err(FixturesMissing {
        path: compiled.join("tests/fixtures/providers"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixtures_are_found_inside_the_repository() {
        let dir = provider_fixtures_dir().unwrap();
        let repository = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
            .join("../../..")
            .canonicalize()
            .unwrap();
        assert!(dir.starts_with(&repository), "{}", dir.display());
        assert!(dir.join("anthropic").is_dir());
    }
}
