//! Relative paths from a front end, resolved inside the project.

use std::path::{Component, Path, PathBuf};

use crate::{Excluded, FilesError};

/// `relative` (a `/`-separated path from a front end) inside `root`: absolute paths, `..`,
/// and links leading out of the project are refused, as are excluded folders.
pub fn resolve_inside(
    root: &Path,
    relative: &str,
    excluded: &Excluded,
) -> Result<PathBuf, FilesError> {
    let outside = || FilesError::Outside {
        path: relative.to_owned(),
    };
    let mut joined = root.to_path_buf();
    for component in Path::new(relative).components() {
        match component {
            Component::Normal(part) => joined.push(part),
            Component::CurDir => {}
            _ => return Err(outside()),
        }
    }
    let resolved = joined
        .canonicalize()
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => FilesError::NotFound {
                path: relative.to_owned(),
            },
            _ => FilesError::Io {
                path: relative.to_owned(),
                source,
            },
        })?;
    let root = root.canonicalize().map_err(|source| FilesError::Io {
        path: String::new(),
        source,
    })?;
    if !resolved.starts_with(&root) {
        return Err(outside());
    }
    if resolved
        .ancestors()
        .take_while(|ancestor| *ancestor != root)
        .any(|ancestor| excluded.contains(ancestor))
    {
        return Err(FilesError::ArborOwned {
            path: relative.to_owned(),
        });
    }
    Ok(resolved)
}

/// `path` relative to `root` with `/` separators, or `None` when it is not valid UTF-8.
pub(crate) fn relative(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}
