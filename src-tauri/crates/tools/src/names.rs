//! File names that are not valid UTF-8. Tool arguments are JSON strings, so such a name cannot
//! be typed exactly: `ls`, `find` and `grep` show it lossily (U+FFFD for the bytes that are
//! not UTF-8) and say so with [`NOT_UTF8_MARKER`], and the tools that open a file take that
//! lossy form back to the one entry of its folder it can stand for.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

use super::paths;

/// Appended to a name shown lossily.
pub const NOT_UTF8_MARKER: &str = " (name not UTF-8)";

/// Several entries of one folder have the same lossy name, so it cannot say which is meant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{count} entries in {folder} are shown as {name:?}: their names are not valid UTF-8 and \
     differ only in the bytes shown as \u{FFFD}, so the name cannot say which one is meant. \
     Rename them with bash first (for example `ls -b` to see the bytes, then `mv` with a glob)."
)]
pub struct AmbiguousName {
    pub folder: String,
    pub name: String,
    pub count: usize,
}

pub(crate) fn is_utf8(name: &OsStr) -> bool {
    name.to_str().is_some()
}

/// `given` (a tool's path argument) resolved against `cwd`, then through [`resolve_lossy`].
pub(crate) fn resolve_existing(cwd: &Path, given: &str) -> Result<PathBuf, AmbiguousName> {
    resolve_lossy(paths::resolve(cwd, given))
}

/// The path the model meant by `path`: itself when it exists or holds no U+FFFD; otherwise,
/// component by component, the one entry of its folder whose lossy name equals the component
/// (a copied [`NOT_UTF8_MARKER`] is dropped first). A component no entry matches is kept as
/// given, so the caller's "not found" (or a new file's creation) happens as before.
pub(crate) fn resolve_lossy(path: PathBuf) -> Result<PathBuf, AmbiguousName> {
    if path.symlink_metadata().is_ok() {
        return Ok(path);
    }
    let path = strip_marker(path);
    if !path
        .as_os_str()
        .as_encoded_bytes()
        .windows(3)
        .any(|w| w == "\u{FFFD}".as_bytes())
    {
        return Ok(path);
    }
    let mut resolved = PathBuf::new();
    for component in path.components() {
        let Component::Normal(name) = component else {
            resolved.push(component);
            continue;
        };
        let candidate = resolved.join(name);
        let lossy = name.to_str().filter(|name| name.contains('\u{FFFD}'));
        match lossy {
            Some(lossy) if candidate.symlink_metadata().is_err() => {
                let matches = lossy_matches(&resolved, lossy);
                match matches.len() {
                    1 => resolved.extend(matches),
                    0 => resolved.push(name),
                    count => {
                        return Err(AmbiguousName {
                            folder: resolved.display().to_string(),
                            name: lossy.to_string(),
                            count,
                        })
                    }
                }
            }
            _ => resolved = candidate,
        }
    }
    Ok(resolved)
}

/// `path` without a trailing [`NOT_UTF8_MARKER`] (and the `/` `ls` puts before it on folders).
fn strip_marker(path: PathBuf) -> PathBuf {
    // The path came from a JSON string, so it is UTF-8.
    let Some(text) = path.to_str() else {
        return path;
    };
    match text.strip_suffix(NOT_UTF8_MARKER) {
        Some(rest) => PathBuf::from(rest.strip_suffix('/').unwrap_or(rest)),
        None => path,
    }
}

/// The names in `folder` that are not UTF-8 and read as `lossy`.
fn lossy_matches(folder: &Path, lossy: &str) -> Vec<OsString> {
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|entry| entry.file_name())
        .filter(|name| !is_utf8(name) && name.to_string_lossy() == lossy)
        .collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn maps_the_lossy_form_back_to_the_one_entry() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join(OsStr::from_bytes(b"caf\xe9.txt"));
        std::fs::write(&real, "x").unwrap();
        let lossy = dir.path().join("caf\u{FFFD}.txt");
        assert_eq!(resolve_lossy(lossy.clone()).unwrap(), real);
        let marked = dir.path().join("caf\u{FFFD}.txt (name not UTF-8)");
        assert_eq!(resolve_lossy(marked).unwrap(), real);
        std::fs::write(dir.path().join(OsStr::from_bytes(b"caf\xe8.txt")), "y").unwrap();
        let error = resolve_lossy(lossy).unwrap_err();
        assert_eq!(error.count, 2);
        // A name nothing matches stays as given (write creates it literally).
        let new = dir.path().join("new\u{FFFD}.txt");
        assert_eq!(resolve_lossy(new.clone()).unwrap(), new);
    }

    #[test]
    fn folders_are_mapped_too() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(OsStr::from_bytes(b"d\xff"));
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("a.txt"), "x").unwrap();
        let given = dir.path().join("d\u{FFFD}/a.txt");
        assert_eq!(resolve_lossy(given).unwrap(), folder.join("a.txt"));
        assert!(!is_utf8(folder.file_name().unwrap()));
    }
}
